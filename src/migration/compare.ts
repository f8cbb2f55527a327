/** One answer of one side: its status and its parsed JSON body. */
export interface Side {
  status: number;
  body: unknown;
}

/** One place where the two answers differ. */
export interface Difference {
  /** Array positions collapsed (`data[].rank`), so differences count together; `(status)` for the status. */
  path: string;
  /** The first concrete place (`data[3].rank`). */
  at: string;
  /** `value`, or `order` (same records, another order), `records` (other records), `length`. */
  kind: 'value' | 'order' | 'records' | 'length';
  facade: unknown;
  legacy: unknown;
}

type Json = unknown;

const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);
const idsOf = (list: Json[]): string[] | undefined =>
  list.every((item) => isObject(item) && typeof item.id === 'string') ? list.map((item) => (item as { id: string }).id) : undefined;
const join = (parent: string, key: string) => (parent === '' ? key : `${parent}.${key}`);

/**
 * The differences between the facade's and the legacy backend's answer (docs/reference/migration.md):
 * status and JSON body, object key order ignored, array order significant, `ignore` paths (and
 * what is below them) left out. A list of records is matched by `id`, so one record out of order
 * is one `order` difference rather than a difference in every field of every record after it.
 */
export function differences(facade: Side, legacy: Side, ignore: readonly string[] = []): Difference[] {
  const out: Difference[] = [];
  const ignored = (path: string) => ignore.some((p) => path === p || path.startsWith(`${p}.`) || path.startsWith(`${p}[`));
  const push = (d: Difference) => {
    if (!ignored(d.path)) out.push(d);
  };

  const walk = (a: Json, b: Json, path: string, at: string): void => {
    if (ignored(path)) return;
    if (Array.isArray(a) && Array.isArray(b)) {
      walkArrays(a, b, path, at);
      return;
    }
    if (isObject(a) && isObject(b)) {
      for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) walk(a[key], b[key], join(path, key), join(at, key));
      return;
    }
    if (a !== b) push({ path: path || '(body)', at: at || '(body)', kind: 'value', facade: a, legacy: b });
  };

  const walkArrays = (a: Json[], b: Json[], path: string, at: string): void => {
    const [idsA, idsB] = [idsOf(a), idsOf(b)];
    if (idsA && idsB && idsA.join('\u0000') !== idsB.join('\u0000')) {
      const same = idsA.length === idsB.length && [...idsA].sort().join('\u0000') === [...idsB].sort().join('\u0000');
      push({ path: same ? path : `${path}[].id`, at: same ? path : `${at}[].id`, kind: same ? 'order' : 'records', facade: idsA, legacy: idsB });
      const byId = new Map(b.map((item) => [(item as { id: string }).id, item]));
      a.forEach((item, i) => {
        const other = byId.get((item as { id: string }).id);
        if (other !== undefined) walk(item, other, `${path}[]`, `${at}[${i}]`);
      });
      return;
    }
    if (a.length !== b.length) push({ path, at, kind: 'length', facade: a.length, legacy: b.length });
    for (let i = 0; i < Math.min(a.length, b.length); i++) walk(a[i], b[i], `${path}[]`, `${at}[${i}]`);
  };

  if (facade.status !== legacy.status) push({ path: '(status)', at: '(status)', kind: 'value', facade: facade.status, legacy: legacy.status });
  walk(facade.body, legacy.body, '', '');
  return out;
}
