/**
 * The descriptions are valid OpenAPI 3.1 for a real toolchain (`@readme/openapi-parser`), their
 * schemas compile under a strict JSON Schema 2020-12 validator, and they cover what the core
 * defines: every resource, method, sortable field and error code.
 */
import { dereference, validate } from '@readme/openapi-parser';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config';
import { ENUMERATIONS, RESOURCES, RESOURCE_NAMES } from '../../../src/core/resources';
import { ERROR_CODES, isOAuthCode, type ErrorCode } from '../../../src/core/error-codes';
import { describeVersions } from '../../../src/openapi/document';
import { METHODS, type OpenApiDocument, type ParameterObject } from '../../../src/openapi/types';
import { buildVersions } from '../../../src/versions';

const config = parseConfig({});
const documents = describeVersions(config, buildVersions(config));
const v2 = documents.get('/v2')!;

describe('the descriptions as OpenAPI documents', () => {
  for (const [base, doc] of documents) {
    it(`${base}: valid OpenAPI 3.1 for @readme/openapi-parser, and every $ref resolves`, async () => {
      const result = await validate(structuredClone(doc) as never);
      expect(result.valid, result.valid ? '' : JSON.stringify(result.errors).slice(0, 2000)).toBe(true);
      const resolved = await dereference(structuredClone(doc) as never);
      expect(JSON.stringify(resolved)).not.toContain('"$ref"');
    });

    it(`${base}: every schema compiles under strict JSON Schema 2020-12`, () => {
      const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
      addFormats(ajv);
      const id = `urn:test:${base}`;
      const rewrite = (value: unknown) => JSON.parse(JSON.stringify(value).replaceAll('"#/components/schemas/', `"${id}#/$defs/`));
      ajv.addSchema({ $id: id, $defs: rewrite(doc.components.schemas) });
      for (const name of Object.keys(doc.components.schemas)) expect(() => ajv.getSchema(`${id}#/$defs/${name}`), name).not.toThrow();
      // And every body and header schema the operations use.
      const used: unknown[] = [];
      const collect = (value: unknown): void => {
        if (Array.isArray(value)) value.forEach(collect);
        else if (value && typeof value === 'object') {
          for (const [key, inner] of Object.entries(value)) key === 'schema' ? used.push(inner) : collect(inner);
        }
      };
      collect({ paths: doc.paths, responses: doc.components.responses, headers: doc.components.headers, parameters: doc.components.parameters });
      expect(used.length).toBeGreaterThan(50);
      for (const schema of used) expect(() => ajv.compile(rewrite(schema))).not.toThrow();
    });
  }
});

describe('the v2 description covers the core', () => {
  it('every resource path, enumeration and method, each with its parameters', () => {
    for (const resource of RESOURCE_NAMES) {
      for (const path of [`/${resource}`, `/${resource}/{id}`]) {
        const item = v2.paths[path];
        expect(item, path).toBeDefined();
        expect(
          METHODS.filter((m) => item![m]),
          path,
        ).toEqual(['get', 'head', 'options']);
      }
      const names = (v2.paths[`/${resource}`]!.get!.parameters ?? []).map((p) => ('$ref' in p ? p.$ref.split('/').pop()! : (p as ParameterObject).name));
      expect(names).toEqual(['page', 'q', ...RESOURCES[resource].sortable.map((f) => `order[${f}]`)]);
    }
    for (const { parent, child } of ENUMERATIONS) expect(v2.paths[`/${parent}/{id}/${child}`]?.get, `${parent}/${child}`).toBeDefined();
    expect(v2.paths['/token']?.post?.requestBody).toBeDefined();
    expect(v2.paths['/token']?.servers).toEqual([{ url: '/oauth', description: expect.any(String) }]);
  });

  it('the problem code enum is the code table, and each status answers with its own codes', () => {
    const problemCodes = (Object.keys(ERROR_CODES) as ErrorCode[]).filter((c) => !isOAuthCode(c));
    expect((v2.components.schemas.Problem!.properties as Record<string, { enum: string[] }>).code!.enum).toEqual(problemCodes);
    const statuses = Object.keys(v2.components.responses)
      .filter((n) => /^Error\d+$/.test(n))
      .map((n) => Number(n.slice(5)));
    // Every status a v2 operation can answer (410 belongs to retired versions only; 405 answers
    // only methods no path describes, and each path item says so).
    expect(statuses).toEqual(
      [...new Set(problemCodes.map((c) => ERROR_CODES[c].status as number))].filter((s) => s !== 410 && s !== 405).sort((a, b) => a - b),
    );
  });

  it('a detail operation answers 200, 304 and every error status that applies', () => {
    const responses = Object.keys(v2.paths['/species/{id}']!.get!.responses);
    expect(responses).toEqual(expect.arrayContaining(['200', '301', '304', '400', '401', '403', '404', '426', '429', '500', '502', '504']));
    expect(responses).not.toContain('405');
  });

  it('the security schemes: ApiKey in Authorization, Bearer, OAuth 2.0 client credentials at /oauth/token', () => {
    const schemes = v2.components.securitySchemes as OpenApiDocument['components']['securitySchemes'];
    expect(schemes.ApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
    expect(schemes.Bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(schemes.OAuth2).toMatchObject({ type: 'oauth2', flows: { clientCredentials: { tokenUrl: '/oauth/token' } } });
  });
});

describe('only real operations', () => {
  const SUCCESS = new Set(['200', '204', '304']);
  const described = [...documents].flatMap(([base, doc]) =>
    Object.entries(doc.paths).flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((method) => ({ base, path, method, operation: item[method]! }))),
  );

  it('every operation of every document can succeed: a 200, 204 or 304 beside its errors and redirects', () => {
    const onlyFailing = described.filter(({ operation }) => !Object.keys(operation.responses).some((status) => SUCCESS.has(status)));
    expect(onlyFailing.map(({ base, path, method }) => `${base} ${method.toUpperCase()} ${path}`)).toEqual([]);
  });

  it('no document lists PUT, PATCH, DELETE or TRACE, nor GET or HEAD of the token endpoint', () => {
    const refused = described.filter(({ path, method }) => ['put', 'patch', 'delete', 'trace'].includes(method) || (path === '/token' && method !== 'post'));
    expect(refused.map(({ base, path, method }) => `${base} ${method.toUpperCase()} ${path}`)).toEqual([]);
    for (const [base, doc] of documents)
      expect(
        doc.tags.map((t) => t.name),
        base,
      ).not.toContain('Other methods');
  });

  it('each path item names the methods it serves and its 405 with the Allow value', () => {
    for (const [base, doc] of documents) {
      for (const [path, item] of Object.entries(doc.paths)) {
        const allow = METHODS.filter((m) => item[m])
          .map((m) => m.toUpperCase())
          .join(', ');
        expect(item.description, `${base} ${path}`).toMatch(/\b405\b/);
        expect(item.description, `${base} ${path}`).toContain('svc/methodNotAllowed');
        expect(item.description, `${base} ${path}`).toContain(`\`Allow: ${allow}\``);
      }
    }
    // What each serves: CORS preflights where the version answers them, the description everywhere.
    expect(METHODS.filter((m) => documents.get('/v1')!.paths['/species']![m])).toEqual(['get', 'head']);
    expect(METHODS.filter((m) => documents.get('/v1')!.paths['/openapi.json']![m])).toEqual(['get', 'head', 'options']);
    expect(METHODS.filter((m) => documents.get('/v3')!.paths['/species']![m])).toEqual(['get', 'head', 'options']);
    expect(METHODS.filter((m) => v2.paths['/token']![m])).toEqual(['post']);
  });
});
