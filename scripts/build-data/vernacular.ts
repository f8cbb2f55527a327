import { nonEmpty, type Sources } from './csv';
import { isMisapplied, matchKey, parseName } from './names';
import { byString } from './order';
import type { Synonyms } from './synonyms';
import { preference, type Taxon } from './taxa';

/** A name in one language, its key as `common_names` writes it (`en`, `fr`, `cr`, `aaq`, ...). */
export interface VernacularName {
  lang: string;
  name: string;
}

/** VASCAN names per USDA id, with how the VASCAN taxa were matched (for the build's report). */
export interface Vernacular {
  namesOf: Map<string, VernacularName[]>;
  direct: number;
  viaSynonym: number;
  unmatched: string[];
  withoutLanguage: number;
}

/**
 * Stage 3c: VASCAN taxa matched to USDA taxa by match key (accepted names first, then synonyms;
 * only a single candidate counts), and their names recoded to language keys.
 */
export function readVernacular(sources: Sources, taxa: Taxon[], synonyms: Synonyms, warnings: string[]): Vernacular {
  const langKey = languageKeys(sources);
  const accKeyToId = new Map<string, string[]>();
  for (const r of [...taxa].sort(preference)) {
    if (isMisapplied(r.parsed)) continue; // a misapplied name is not the taxon VASCAN means
    const k = matchKey(r.parsed);
    const list = accKeyToId.get(k) ?? [];
    list.push(r.id);
    accKeyToId.set(k, list);
  }
  const vascanTarget = new Map<string, string>(); // VASCAN taxon id → USDA symbol
  let direct = 0;
  let viaSynonym = 0;
  const unmatched: string[] = [];
  for (const vt of sources.vascanTaxa) {
    const name = vt.scientificName!;
    const p = parseName(name);
    const key = matchKey(p);
    const found = accKeyToId.get(key);
    if (found && found.length === 1) {
      vascanTarget.set(vt.id!, found[0]!);
      direct++;
      continue;
    }
    if (found && found.length > 1) warnings.push(`VASCAN ${vt.id} "${name}" matches several: ${found.join(', ')}`);
    const viaSyn = synonyms.acceptedByKey.get(key);
    if (!found && viaSyn && viaSyn.length === 1) {
      vascanTarget.set(vt.id!, viaSyn[0]!);
      viaSynonym++;
      continue;
    }
    if (!found && viaSyn && viaSyn.length > 1) {
      warnings.push(`VASCAN ${vt.id} "${name}" is a synonym of several: ${viaSyn.join(', ')}`);
    }
    unmatched.push(`${vt.id} ${name}`);
  }
  const namesOf = new Map<string, VernacularName[]>();
  let withoutLanguage = 0;
  for (const vn of sources.vascanNames) {
    const target = vascanTarget.get(vn.id!);
    const name = nonEmpty(vn.vernacularName);
    const langRaw = nonEmpty(vn.language);
    if (langRaw === null) {
      withoutLanguage++;
      continue;
    }
    if (!target || name === null) continue;
    const lang = langKey.get(langRaw) ?? langRaw.replace(/^ISO 639:/, '').toLowerCase();
    const list = namesOf.get(target) ?? [];
    list.push({ lang, name });
    namesOf.set(target, list);
  }
  return { namesOf, direct, viaSynonym, unmatched, withoutLanguage };
}

/** The language key of each VASCAN `language` value: its ISO 639-1 code where there is one, else its 639-3 code. */
function languageKeys(sources: Sources): Map<string, string> {
  const langKey = new Map<string, string>();
  for (const r of sources.languages) {
    const dwc = nonEmpty(r.dwcValue);
    if (dwc === null) continue;
    const code1 = nonEmpty(r['ISO 639-1']);
    const key = code1 ? code1.toLowerCase() : dwc.replace(/^ISO 639:/, '').toLowerCase();
    const prev = langKey.get(dwc);
    if (prev !== undefined && prev !== key) throw new Error(`language mapping conflict for ${dwc}`);
    langKey.set(dwc, key);
  }
  return langKey;
}

/**
 * A taxon's `common_names`: the USDA name, then VASCAN's English names, then the other languages;
 * deduplicated case-insensitively per language (first spelling kept), `en` first, then by key.
 */
export function commonNames(usdaName: string | null, vascan: VernacularName[]): Record<string, string[]> {
  const names = new Map<string, { list: string[]; seen: Set<string> }>();
  const add = (lang: string, name: string): void => {
    let e = names.get(lang);
    if (!e) {
      e = { list: [], seen: new Set() };
      names.set(lang, e);
    }
    const key = name.toLowerCase();
    if (e.seen.has(key)) return;
    e.seen.add(key);
    e.list.push(name);
  };
  if (usdaName !== null) add('en', usdaName);
  for (const x of vascan) if (x.lang === 'en') add('en', x.name);
  for (const x of vascan) if (x.lang !== 'en') add(x.lang, x.name);
  const langs = [...names.keys()].sort((a, b) => (a === 'en' ? -1 : b === 'en' ? 1 : byString(a, b)));
  const out: Record<string, string[]> = {};
  for (const l of langs) out[l] = names.get(l)!.list;
  return out;
}
