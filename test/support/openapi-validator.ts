/**
 * Checks a response against the OpenAPI description of its version: the operation (path and
 * method), the status, the required headers and their values, and the body with a strict JSON
 * Schema 2020-12 validator. Runtime-neutral: the suites' clients call it on Node and in workerd.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Config } from '../../src/config';
import { describeVersions } from '../../src/openapi/document';
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
}

/** A description made checkable: its routes as patterns, its schemas compiled on first use. */
class DescribedVersion {
  readonly ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();
  readonly routes: Route[];

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
      const operations = Object.fromEntries(METHODS.filter((m) => item[m]).map((m) => [m, item[m]]));
      return { pattern: new RegExp(`^${source}$`), template, operations };
    });
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

  /** What is wrong with a response (empty when it is as described, or when no operation covers it). */
  problems(method: string, url: string, res: Response, text: string): string[] {
    const path = new URL(url, 'https://localhost').pathname;
    const lower = method.toLowerCase() as Method;
    if (!METHODS.includes(lower)) return [];
    const version = this.versions.find((v) => path.startsWith(`${v.base}/`)) ?? this.versions.find((v) => v.base === '/v2');
    const route = version?.routes.find((r) => r.pattern.test(path));
    if (!version || !route) return []; // not a described path: /healthz, an unknown path
    const operation = route.operations[lower];
    if (!operation) return [`${method} ${route.template} is not described`];
    const described = operation.responses[String(res.status)];
    if (!described) return [`status ${res.status} is not described for ${operation.operationId} (described: ${Object.keys(operation.responses).join(', ')})`];
    const response = version.deref<ResponseObject>(described);
    const where = `${operation.operationId} ${res.status}`;
    const problems: string[] = [];

    for (const [name, value] of Object.entries(response.headers ?? {})) {
      const header = version.deref<HeaderObject>(value);
      const actual = res.headers.get(name);
      if (actual === null) {
        if (header.required) problems.push(`header ${name} is required`);
        continue;
      }
      const validate = version.validator(`${where} header ${name}`, header.schema);
      if (!validate(actual)) problems.push(`header ${name}: ${JSON.stringify(actual)} ${version.ajv.errorsText(validate.errors)}`);
    }

    if (lower === 'head' || !response.content) {
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
    const validate = version.validator(`${where} ${mediaType}`, media.schema);
    if (!validate(body)) {
      const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
      problems.push(`body: ${errors.join('; ')}; body: ${text.slice(0, 300)}`);
    }
    return problems;
  }
}

const validators = new Map<string, OpenApiValidator>();

/** The validator of the descriptions an app with this configuration serves, shared by apps alike. */
export function validatorFor(config: Pick<Config, 'docsUrl' | 'v1DeprecatedAt' | 'v1Sunset'> & Config): OpenApiValidator {
  const key = JSON.stringify([config.docsUrl, config.v1DeprecatedAt, config.v1Sunset]);
  let validator = validators.get(key);
  if (!validator) validators.set(key, (validator = new OpenApiValidator(describeVersions(config, buildVersions(config)))));
  return validator;
}
