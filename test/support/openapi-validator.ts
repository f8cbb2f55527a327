/**
 * Checks a response against the OpenAPI description of its version: the operation (path and
 * method), the status, the required headers and their values, and the body with a strict JSON
 * Schema 2020-12 validator; a method the path item does not describe must get 405 with `Allow`
 * naming exactly the methods it does. Runtime-neutral: the suites' clients call it on Node and
 * in workerd.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Config } from '../../src/config';
import { describeVersions } from '../../src/openapi/document';
import { problemStatuses } from '../../src/openapi/errors';
import { ERROR_RESPONSE, errorResponse } from '../../src/openapi/names';
import { problemOf } from '../../src/openapi/schemas';
import {
  METHODS,
  type HeaderObject,
  type JsonSchema,
  type Method,
  type OpenApiDocument,
  type Operation,
  type Ref,
  type ResponseObject,
} from '../../src/openapi/types';
import { buildVersions } from '../../src/versions';

interface Route {
  pattern: RegExp;
  template: string;
  operations: Partial<Record<Method, Operation>>;
  /** The methods the path item describes, as `Allow` names them. */
  allow: string;
}

/** Headers an error carries only at some statuses (`WWW-Authenticate` at 401, ...), not every error. */
const STATUS_HEADERS = new Set(['WWW-Authenticate', 'Upgrade', 'Retry-After']);

/** A description made checkable: its routes as patterns, its schemas compiled on first use. */
class DescribedVersion {
  readonly ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();
  readonly routes: Route[];
  /** What a method the path item does not describe is answered. */
  readonly methodNotAllowed: ResponseObject;

  constructor(
    readonly base: string,
    private readonly doc: OpenApiDocument,
  ) {
    addFormats(this.ajv);
    const id = `urn:openapi:${base}`;
    // Component schemas become `$defs` of one schema, so `$ref`s resolve inside ajv.
    const rewritten = JSON.parse(JSON.stringify(doc.components.schemas).replaceAll('"#/components/schemas/', `"${id}#/$defs/`));
    this.ajv.addSchema({ $id: id, $defs: rewritten });
    this.routes = Object.entries(doc.paths).map(([key, item]) => {
      const template = `${item.servers?.[0]?.url ?? base}${key}`;
      const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
      const described = METHODS.filter((m) => item[m]);
      const operations = Object.fromEntries(described.map((m) => [m, item[m]]));
      return { pattern: new RegExp(`^${source}$`), template, operations, allow: described.map((m) => m.toUpperCase()).join(', ') };
    });
    this.methodNotAllowed = this.errorOf(405);
  }

  /** A shared response of the document: a redirect, or the version's error of a status. */
  sharedResponse(status: number): ResponseObject | undefined {
    return this.doc.components.responses[status === 301 || status === 308 ? `Redirect${status}` : errorResponse(status)];
  }

  /**
   * The version's error of a status no operation lists (405): the headers and the body shape of
   * its shared errors (problem+json, or v1's legacy body), with that status.
   */
  private errorOf(status: number): ResponseObject {
    const shared = Object.entries(this.doc.components.responses).find(([name]) => ERROR_RESPONSE.test(name))![1];
    const headers = Object.fromEntries(Object.entries(shared.headers ?? {}).filter(([name]) => !STATUS_HEADERS.has(name)));
    const [mediaType] = Object.keys(shared.content ?? {});
    const schema =
      mediaType === 'application/problem+json'
        ? problemOf(status)
        : { allOf: [{ $ref: '#/components/schemas/LegacyError' }, { type: 'object', properties: { statusCode: { const: status } } }] };
    return { description: `Error ${status}`, headers, content: { [mediaType!]: { schema } } };
  }

  /** What is wrong with a response judged by the described one: its headers, its body. */
  mismatches(where: string, response: ResponseObject, headOnly: boolean, res: Response, text: string): string[] {
    const problems: string[] = [];
    for (const [name, value] of Object.entries(response.headers ?? {})) {
      const header = this.deref<HeaderObject>(value);
      const actual = res.headers.get(name);
      if (actual === null) {
        if (header.required) problems.push(`header ${name} is required`);
        continue;
      }
      const validate = this.validator(`${where} header ${name}`, header.schema);
      if (!validate(actual)) problems.push(`header ${name}: ${JSON.stringify(actual)} ${this.ajv.errorsText(validate.errors)}`);
    }
    if (headOnly || !response.content) {
      if (text !== '') problems.push(`a body where none is described: ${text.slice(0, 200)}`);
      return problems;
    }
    const mediaType = (res.headers.get('Content-Type') ?? '').split(';')[0]!.trim();
    const media = response.content[mediaType];
    if (!media) return [...problems, `Content-Type ${mediaType} is not described (described: ${Object.keys(response.content).join(', ')})`];
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return [...problems, `body is not JSON: ${text.slice(0, 200)}`];
    }
    const validate = this.validator(`${where} ${mediaType}`, media.schema);
    if (!validate(body)) {
      const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
      problems.push(`body: ${errors.join('; ')}; body: ${text.slice(0, 300)}`);
    }
    return problems;
  }

  deref<T>(value: T | Ref): T {
    if (value && typeof value === 'object' && '$ref' in value) {
      const [, , section, name] = value.$ref.split('/');
      return (this.doc.components as unknown as Record<string, Record<string, T>>)[section!]![name!]!;
    }
    return value as T;
  }

  validator(key: string, schema: JsonSchema): ValidateFunction {
    let fn = this.compiled.get(key);
    if (!fn) {
      const id = `urn:openapi:${this.base}`;
      fn = this.ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${id}#/$defs/`)));
      this.compiled.set(key, fn);
    }
    return fn;
  }
}

export class OpenApiValidator {
  private readonly versions: DescribedVersion[];

  constructor(documents: Map<string, OpenApiDocument>) {
    // Longest base first, so `/api/v1` is not read as a path of something shorter.
    this.versions = [...documents].map(([base, doc]) => new DescribedVersion(base, doc)).sort((a, b) => b.base.length - a.base.length);
  }

  /**
   * Throws, naming the operation and what is wrong, when the response is not as described.
   * Returns the same response, its body read once (cheaper than a clone on every runtime).
   */
  async check(method: string, url: string, res: Response): Promise<Response> {
    const text = await res.text();
    const problems = this.problems(method, url, res, text);
    if (problems.length > 0) throw new Error(`${method} ${url} -> ${res.status} is not as described:\n  ${problems.join('\n  ')}`);
    const nullBody = text === '' && (method === 'HEAD' || [101, 204, 205, 304].includes(res.status));
    return new Response(nullBody ? null : text, { status: res.status, statusText: res.statusText, headers: res.headers });
  }

  /** What is wrong with a response (empty when it is as described, or when no described path covers it). */
  problems(method: string, url: string, res: Response, text: string): string[] {
    const path = new URL(url, 'https://localhost').pathname;
    const lower = method.toLowerCase() as Method;
    const version = this.versions.find((v) => path.startsWith(`${v.base}/`)) ?? this.versions.find((v) => v.base === '/v2');
    const route = version?.routes.find((r) => r.pattern.test(path));
    if (!version || !route) return []; // not a described path: /healthz, an unknown path
    const operation = METHODS.includes(lower) ? route.operations[lower] : undefined;
    if (!operation) return notServed(version, route, method, res, text);
    const described = operation.responses[String(res.status)];
    if (!described) return [`status ${res.status} is not described for ${operation.operationId} (described: ${Object.keys(operation.responses).join(', ')})`];
    return version.mismatches(`${operation.operationId} ${res.status}`, version.deref<ResponseObject>(described), lower === 'head', res, text);
  }
}

/** Statuses a policy answers before it looks at the method: host, transport, retirement, internal errors. */
const BEFORE_METHODS = new Set([301, 308, ...problemStatuses(['every', 'retired'])]);

/**
 * A method the path item does not describe is answered 405 with `Allow` naming exactly the
 * methods it describes, in the version's error shape; or, first, by a policy every request meets
 * (a redirect or error the document describes as a shared response).
 */
function notServed(version: DescribedVersion, route: Route, method: string, res: Response, text: string): string[] {
  const where = `${method} ${route.template} (not described)`;
  if (res.status === 405) {
    const problems = version.mismatches(where, version.methodNotAllowed, method === 'HEAD', res, text);
    if (res.headers.get('Allow') !== route.allow) problems.push(`Allow: ${JSON.stringify(res.headers.get('Allow'))}, the path item describes ${route.allow}`);
    return problems;
  }
  const shared = BEFORE_METHODS.has(res.status) && version.sharedResponse(res.status);
  if (!shared) return [`${where} -> ${res.status}: a method the path item does not describe must be answered 405 with Allow: ${route.allow}`];
  return version.mismatches(`${where} ${res.status}`, shared, method === 'HEAD', res, text);
}

const validators = new Map<string, OpenApiValidator>();

/** The validator of the descriptions an app with this configuration serves, shared by apps alike. */
export function validatorFor(config: Pick<Config, 'docsUrl' | 'v1DeprecatedAt' | 'v1Sunset'> & Config): OpenApiValidator {
  const key = JSON.stringify([config.docsUrl, config.v1DeprecatedAt, config.v1Sunset]);
  let validator = validators.get(key);
  if (!validator) validators.set(key, (validator = new OpenApiValidator(describeVersions(config, buildVersions(config)))));
  return validator;
}
