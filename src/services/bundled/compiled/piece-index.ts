/**
 * The index of the sections published one piece each (Workers Static Assets), which the worker
 * carries in its bundle: the meta, and the type of every piece by name. Pieces come in numbered
 * runs (`species.records.0` to `species.records.2049`), so a run is one entry, its name, type and
 * count: 89 entries where one per piece made 6,711, and the module a fresh isolate evaluates before
 * its first answer is about 60 KB (most of it the fences) instead of 401 KB (evaluating it: 3 against 20-25 ms in V8 on a
 * loaded two-core machine).
 */
import type { SectionType } from './container';
import type { CompiledMeta } from './layout';

export interface PieceIndex {
  meta: CompiledMeta;
  /**
   * Each run of pieces `<name>.0` to `<name>.<count - 1>` as `[type, count]`; a piece whose name
   * ends in no number is an entry of its own, with count 0.
   */
  runs: Record<string, [SectionType, number]>;
}

/** A name's run and its number in it (no leading zeros), or undefined. */
const NUMBERED = /^(.+)\.(0|[1-9]\d*)$/;

/**
 * The index of `pieces` (name and type, in the order they are numbered). A run must be numbered
 * from 0 without gaps and of one type, and no name may be both a piece and a run: anything else
 * could not be read back exactly, and is refused.
 */
export function pieceIndex(meta: CompiledMeta, pieces: Iterable<readonly [string, SectionType]>): PieceIndex {
  const runs: PieceIndex['runs'] = {};
  const single = new Set<string>();
  for (const [name, type] of pieces) {
    const numbered = NUMBERED.exec(name);
    if (!numbered) {
      if (runs[name]) throw new Error(`piece ${name} is also the name of a run of pieces`);
      runs[name] = [type, 0];
      single.add(name);
      continue;
    }
    const [, run, number] = numbered as unknown as [string, string, string];
    const entry = (runs[run] ??= [type, 0]);
    if (single.has(run)) throw new Error(`piece ${name} continues ${run}, which is a piece of its own`);
    if (entry[0] !== type) throw new Error(`piece ${name} is ${type} where the rest of ${run} is ${entry[0]}`);
    if (Number(number) !== entry[1]) throw new Error(`piece ${name} follows ${run}.${entry[1] - 1}: a run is numbered from 0 without gaps`);
    entry[1]++;
  }
  return { meta, runs };
}

/** The type of piece `name`, or undefined when the index has no such piece. */
export function pieceType(index: PieceIndex, name: string): SectionType | undefined {
  const own = index.runs[name];
  if (own?.[1] === 0) return own[0];
  const numbered = NUMBERED.exec(name);
  if (!numbered) return undefined;
  const run = index.runs[numbered[1]!];
  return run && run[1] > 0 && Number(numbered[2]) < run[1] ? run[0] : undefined;
}
