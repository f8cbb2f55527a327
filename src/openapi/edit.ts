import { RESOURCE_NAMES } from '../core/resources';
import { recordSchema } from './names';
import { METHODS, type JsonSchema, type Method, type Operation, type OpenApiDocument, type ResponseObject } from './types';

/** Helpers for version changes that edit a description; each visits only the version's own parts. */

export interface Located {
  path: string;
  method: Method;
  operation: Operation;
}

/** The operations under the version's base (not the token endpoint, which has its own server). */
export function versionOperations(doc: OpenApiDocument): Located[] {
  const out: Located[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    if (item.servers) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (operation) out.push({ path, method, operation });
    }
  }
  return out;
}

/** The version's operations that need a credential (the description itself does not). */
export function securedOperations(doc: OpenApiDocument): Located[] {
  return versionOperations(doc).filter(({ operation }) => operation.security === undefined);
}

/** Every response the version itself answers: the shared ones and those written in its operations. */
export function versionResponses(doc: OpenApiDocument): ResponseObject[] {
  const inline = versionOperations(doc).flatMap(({ operation }) => Object.values(operation.responses).filter((r): r is ResponseObject => !('$ref' in r)));
  return [...Object.values(doc.components.responses), ...inline];
}

/** The record schemas (`Species`, `Genus`, ...) with their properties. */
export function recordSchemas(doc: OpenApiDocument): Array<JsonSchema & { properties: Record<string, JsonSchema>; required: string[] }> {
  return RESOURCE_NAMES.map((r) => doc.components.schemas[recordSchema(r)] as JsonSchema & { properties: Record<string, JsonSchema>; required: string[] });
}
