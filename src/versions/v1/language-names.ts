import { recordSchemas } from '../../openapi/edit';
import type { JsonObject, VersionChange } from '../version';

/** Made on first use: only a code outside the dataset's needs it, and making it loads locale data. */
let displayNames: Intl.DisplayNames | undefined;

/**
 * The names of the codes in the bundled dataset, fixed: ICU builds differ (workerd's names only
 * `en` and `fr` of them), and v1 must answer alike on Node and Workers, and alike from one runtime
 * release to the next. These are the names Node 20's ICU gave when v1 was frozen; the codes it could not name (`aaq`, `alg`, `alq`, `ciw`, `pgm`) are absent and stay codes.
 */
const DATASET_NAMES: Readonly<Record<string, string>> = {
  en: 'English',
  fr: 'French',
  atj: 'Atikamekw',
  chp: 'Chipewyan',
  cr: 'Cree',
  mic: "Mi'kmaw",
  moe: 'Innu-aimun',
  oj: 'Ojibwa',
};
const known = new Map<string, string>(Object.entries(DATASET_NAMES));

/**
 * The English name of an ISO 639 code (`fr` -> `French`). A code the runtime's ICU cannot name
 * (`pgm`, `aaq`) keeps its code: inventing a name would be worse than showing what the data has.
 */
export function languageName(code: string): string {
  let name = known.get(code);
  if (name === undefined) {
    try {
      name = (displayNames ??= new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' })).of(code) ?? code;
    } catch {
      name = code; // not a well-formed language tag
    }
    known.set(code, name);
  }
  return name;
}

/**
 * Two codes may name one language (`he` and `iw` are both Hebrew): their names are merged under
 * that key, in order and without repeats, so no name is lost.
 */
function byLanguageName(names: Record<string, string[]>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [code, list] of Object.entries(names)) {
    const key = languageName(code);
    const merged = out[key];
    out[key] = merged ? [...merged, ...list.filter((n) => !merged.includes(n))] : list;
  }
  return out;
}

export const languageNames: VersionChange = {
  name: 'language-names',
  description:
    '`common_names` is keyed by the English name of the language (`French`) instead of its ISO 639 code (`fr`); a code with no known English name stays as it is.',
  record(record) {
    const names = record.common_names;
    if (names === null || typeof names !== 'object') return record;
    return { ...record, common_names: byLanguageName(names as Record<string, string[]>) } satisfies JsonObject;
  },
  describe(doc) {
    for (const schema of recordSchemas(doc)) {
      const names = schema.properties.common_names;
      if (!names) continue;
      delete names.propertyNames;
      names.description = 'Common names by the English name of the language (`French`); a code with no known English name stays a code.';
    }
  },
};
