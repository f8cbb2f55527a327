/**
 * The parts of an OpenAPI 3.1 document this gateway writes. Loose where the specification is open
 * (schemas are JSON Schema 2020-12 objects), typed where version changes edit the document.
 */
export type JsonSchema = { [keyword: string]: unknown };

export interface Ref {
  $ref: string;
}

export interface HeaderObject {
  description?: string;
  required?: boolean;
  schema: JsonSchema;
}

export interface MediaTypeObject {
  schema: JsonSchema;
}

export interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject | Ref>;
  content?: Record<string, MediaTypeObject>;
}

export interface ParameterObject {
  name: string;
  in: 'query' | 'path' | 'header';
  required?: boolean;
  description?: string;
  schema: JsonSchema;
}

export type SecurityRequirement = Record<string, string[]>;

export interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  parameters?: Array<ParameterObject | Ref>;
  requestBody?: { required: boolean; content: Record<string, MediaTypeObject> };
  responses: Record<string, ResponseObject | Ref>;
  /** Absent: the document's `security`; `[]`: no credential. */
  security?: SecurityRequirement[];
  deprecated?: boolean;
}

export const METHODS = ['get', 'head', 'options', 'post', 'put', 'patch', 'delete', 'trace'] as const;
export type Method = (typeof METHODS)[number];

export type PathItem = { [M in Method]?: Operation } & {
  /** Which methods the path serves, and the 405 any other gets. */
  description?: string;
  /** Set on paths outside the version's base (the token endpoint). */
  servers?: ServerObject[];
  /** Parameters of every method: the path's `{id}`. */
  parameters?: Ref[];
};

export interface ServerObject {
  url: string;
  description?: string;
}

export type SecurityScheme =
  | { type: 'apiKey'; in: 'header' | 'query'; name: string; description: string }
  | { type: 'http'; scheme: string; description: string }
  | { type: 'oauth2'; description: string; flows: { clientCredentials: { tokenUrl: string; scopes: Record<string, string> } } };

export interface OpenApiDocument {
  openapi: '3.1.1';
  info: { title: string; version: string; summary: string; description: string };
  servers: ServerObject[];
  tags: Array<{ name: string; description: string }>;
  paths: Record<string, PathItem>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, ResponseObject>;
    parameters: Record<string, ParameterObject>;
    headers: Record<string, HeaderObject>;
    securitySchemes: Record<string, SecurityScheme>;
  };
  security: SecurityRequirement[];
}
