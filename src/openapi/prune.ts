import { METHODS, type OpenApiDocument } from './types';

type Section = 'schemas' | 'responses' | 'parameters' | 'headers';
const REF = /"\$ref":"#\/components\/(schemas|responses|parameters|headers)\/([^"]+)"/g;

function refsIn(value: unknown): Array<[Section, string]> {
  return [...JSON.stringify(value).matchAll(REF)].map((m) => [m[1] as Section, m[2]!]);
}

/**
 * Drops the components nothing refers to any more, after the version changes: v1 has no detail
 * envelope, v3 no API key scheme. What stays is exactly what the paths use.
 */
export function prune(doc: OpenApiDocument): OpenApiDocument {
  const used = new Set<string>();
  const queue = refsIn(doc.paths);
  while (queue.length > 0) {
    const [section, name] = queue.pop()!;
    const key = `${section}/${name}`;
    if (used.has(key)) continue;
    used.add(key);
    queue.push(...refsIn(doc.components[section][name]));
  }
  for (const section of ['schemas', 'responses', 'parameters', 'headers'] as const) {
    for (const name of Object.keys(doc.components[section])) if (!used.has(`${section}/${name}`)) delete doc.components[section][name];
  }
  const schemes = new Set(
    [...doc.security, ...Object.values(doc.paths).flatMap((item) => METHODS.flatMap((method) => item[method]?.security ?? []))].flatMap((req) =>
      Object.keys(req),
    ),
  );
  for (const name of Object.keys(doc.components.securitySchemes)) if (!schemes.has(name)) delete doc.components.securitySchemes[name];
  return doc;
}
