/** How the migration guide and the clients' plans print their v1 / v2 examples. */
import type { JsonObject } from '../src/versions/version';

/** JSON with arrays of plain values kept on one line, so a page of ids stays readable. */
export function pretty(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(/\[\n\s*([^[\]{}]*?)\n\s*\]/g, (_, inner: string) => `[${inner.replace(/,\n\s*/g, ', ')}]`);
}

/** The top-level members that differ between two objects (v1 side, v2 side); the rest is the same. */
export function changed(v1Value: JsonObject, v2Value: JsonObject): [JsonObject, JsonObject] {
  const same = (k: string) => k in v1Value && k in v2Value && JSON.stringify(v1Value[k]) === JSON.stringify(v2Value[k]);
  const pick = (o: JsonObject) => Object.fromEntries(Object.entries(o).filter(([k]) => !same(k)));
  return [pick(v1Value), pick(v2Value)];
}
