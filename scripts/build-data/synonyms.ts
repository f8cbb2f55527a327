import { nonEmpty, type Table } from './csv';
import { matchKey, parseName } from './names';

/** Each accepted taxon's synonyms, and the accepted taxa each synonym's match key leads to. */
export interface Synonyms {
  /** Synonym names per accepted id, in file order, deduplicated. */
  namesOf: Map<string, string[]>;
  /** Accepted ids per synonym match key: a VASCAN name USDA lists only as a synonym still finds its taxon. */
  acceptedByKey: Map<string, string[]>;
}

/** Stage 3a: `usda_synonyms.csv` joined to the accepted taxa; rows for an unknown taxon are noted and skipped. */
export function readSynonyms(synonyms: Table, known: ReadonlySet<string>, warnings: string[]): Synonyms {
  const namesOf = new Map<string, string[]>();
  const acceptedByKey = new Map<string, string[]>();
  for (const r of synonyms) {
    const acc = r.accepted_symbol!;
    if (!known.has(acc)) {
      warnings.push(`synonym row for unknown accepted symbol ${acc}`);
      continue;
    }
    const name = nonEmpty(r.scientific_name_with_author);
    if (name === null) continue;
    const list = namesOf.get(acc) ?? [];
    if (!list.includes(name)) list.push(name);
    namesOf.set(acc, list);
    const key = matchKey(parseName(name));
    const accs = acceptedByKey.get(key) ?? [];
    if (!accs.includes(acc)) accs.push(acc);
    acceptedByKey.set(key, accs);
  }
  return { namesOf, acceptedByKey };
}
