import { METHODS, type OpenApiDocument, type PathItem } from './types';

/** The `Allow` value a path answers 405 with: the methods its item describes, in `METHODS` order. */
export const allowOf = (item: PathItem): string =>
  METHODS.filter((m) => item[m])
    .map((m) => m.toUpperCase())
    .join(', ');

const served = (item: PathItem): string[] => METHODS.filter((m) => item[m]).map((m) => (m === 'options' ? 'OPTIONS (the CORS preflight)' : m.toUpperCase()));

const inWords = (items: string[]): string => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);

/**
 * Says on each path which methods it serves and what any other gets. A method that can only be
 * refused is no operation (a generated client or the reference page would offer a call that
 * always fails), so its 405 is told once, on the path, after the version changes have settled
 * which methods each path serves.
 */
export function describeMethods(doc: OpenApiDocument): OpenApiDocument {
  for (const [path, item] of Object.entries(doc.paths)) {
    const description = `Serves ${inWords(served(item))}. Any other method is answered 405 Method Not Allowed (\`svc/methodNotAllowed\`) with \`Allow: ${allowOf(item)}\`.`;
    doc.paths[path] = { description, ...item };
  }
  return doc;
}
