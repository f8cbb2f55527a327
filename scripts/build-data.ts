/**
 * Builds `fixtures/taxa.json` (type `Dataset`) from the real source data in `../shared/data`
 * (USDA NRCS PLANTS + VASCAN traditional-use vernacular names). See `fixtures/README.md` for the
 * sources, licences and every mapping rule.
 *
 *   npx tsx scripts/build-data.ts [--data DIR] [--out FILE]
 *
 * Deterministic: the same input gives byte-identical output. No dependencies beyond Node.
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ColorTrait, Dataset, DatasetSource, FamilyRecord, FoliageTrait, GenusRecord, PlantRecord, SpeciesRecord } from '../src/core/records.js';

// ---------------------------------------------------------------------------------------------
// Constants
// ---------------------------------------------------------------------------------------------

/** Publication date of the USDA PLANTS extract (kjhealy/usdaplants commit of 2026-03-18). */
export const LAST_MODIFIED = '2026-03-18T00:00:00Z';

export const SOURCES: DatasetSource[] = [
  {
    key: 'usda',
    title: 'USDA, NRCS. The PLANTS Database. National Plant Data Team, Greensboro, NC USA',
    license: 'Public domain',
    url: 'https://plants.usda.gov',
  },
  {
    key: 'vascan',
    title:
      'Uprety Y., Asselin H., Dhakal A., Julien N. (2012) Traditional use of medicinal plants in the boreal ' +
      'forest of Canada: review and perspectives. J. Ethnobiol. Ethnomed. 8:7 ' +
      '(via Datafable vascan-traditional-use)',
    license: 'CC BY 2.0',
    url: 'https://doi.org/10.1186/1746-4269-8-7',
  },
];

const RANKS: Record<string, string> = {
  Species: 'species',
  Variety: 'var',
  Subspecies: 'subsp',
  Form: 'f',
};

/** Infraspecific rank markers as written in the sources, mapped to the marker used in canonical names. */
const MARKERS: Record<string, string> = { 'var.': 'var.', 'ssp.': 'ssp.', 'subsp.': 'ssp.', 'f.': 'f.' };
/** The marker a USDA row of a given rank must end with. */
const RANK_MARKER: Record<string, string> = { Variety: 'var.', Subspecies: 'ssp.', Form: 'f.' };

/**
 * Lower-case words that occur inside author strings and must never be read as an epithet
 * (`Hook. f. ex Benth.`, `sensu Ohwi 1941, non ...`, `Sessé y Lacasta`, `(pro sp.)` ...).
 */
const AUTHOR_WORDS = new Set([
  'ex',
  'in',
  'et',
  'and',
  'de',
  'del',
  'della',
  'des',
  'da',
  'do',
  'dos',
  'du',
  'la',
  'le',
  'van',
  'von',
  'der',
  'den',
  'ter',
  'zu',
  'y',
  'non',
  'nec',
  'sensu',
  'pro',
  'emend',
  'auct',
  'hort',
  'al',
]);

// ---------------------------------------------------------------------------------------------
// CSV / TSV
// ---------------------------------------------------------------------------------------------

/** RFC 4180 parser: quoted fields, doubled quotes, delimiters and newlines inside quotes; LF or CRLF. */
export function parseCsv(text: string, delimiter = ','): string[][] {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let inQuotes = false;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (inQuotes) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        inQuotes = false;
        i++;
        continue;
      }
      field += c;
      i++;
      continue;
    }
    if (c === '"' && field === '') {
      inQuotes = true;
      i++;
    } else if (c === delimiter) {
      row.push(field);
      field = '';
      i++;
    } else if (c === '\n' || c === '\r') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i += c === '\r' && text[i + 1] === '\n' ? 2 : 1;
    } else {
      field += c;
      i++;
    }
  }
  if (inQuotes) throw new Error('CSV: unterminated quoted field');
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/** Parses a delimited file with a header row into objects keyed by column name. */
function readTable(path: string, delimiter: string, quoting = true): Record<string, string>[] {
  const text = readFileSync(path, 'utf8');
  const rows = quoting
    ? parseCsv(text, delimiter)
    : text
        .replace(/^\uFEFF/, '')
        .split(/\r?\n/)
        .filter((l) => l !== '')
        .map((l) => l.split(delimiter));
  const header = rows[0];
  if (!header) throw new Error(`${path}: empty file`);
  return rows.slice(1).map((cells, idx) => {
    if (cells.length !== header.length) {
      throw new Error(`${path}: row ${idx + 2} has ${cells.length} cells, header has ${header.length}`);
    }
    const obj: Record<string, string> = {};
    header.forEach((h, j) => {
      obj[h] = cells[j]!;
    });
    return obj;
  });
}

// ---------------------------------------------------------------------------------------------
// Scientific names
// ---------------------------------------------------------------------------------------------

export interface ParsedName {
  genus: string;
  /** Species epithet, with a glued or separate hybrid sign kept as written (`×ferrissii`). */
  epithet: string;
  /** Infraspecific levels in order (a USDA quadrinomial has two). */
  infra: { marker: string; epithet: string }[];
  /** Rest of an unnamed-hybrid formula that directly follows an epithet (`× serotina`), or null. */
  formula: string | null;
  /** Author tokens per level: [species, infra[0], infra[1], ...]. */
  authors: string[];
  /** Parentage formula found without brackets after the author (`leucophylla × rubra ...`), or null. */
  parentage: string | null;
  /** Bracketed annotations that were removed (`[hyemale × laevigatum]`, `[unnamed hybrid]`). */
  notes: string[];
}

const EPITHET_RE = /^×?[a-zà-öø-ÿ](?:[a-zà-öø-ÿ'.-]*[a-zà-öø-ÿ])?$/;

function isEpithet(tok: string | undefined): tok is string {
  return tok !== undefined && EPITHET_RE.test(tok) && !AUTHOR_WORDS.has(tok) && !(tok in MARKERS);
}

function stripHybrid(s: string): string {
  return s.replace(/^×\s*/, '');
}

/**
 * Splits a USDA / VASCAN / synonym name into its parts. Approach (token based):
 *  1. remove bracketed annotations (hybrid parentage, `[unnamed hybrid]`), split on whitespace;
 *  2. token 1 = genus, token 2 = species epithet (a lone `×` token is joined to the word after it);
 *  3. walk the rest tracking parenthesis depth; outside parentheses, `var.`/`ssp.`/`subsp.`/`f.` followed
 *     by an epithet-like word (lower-case, not an author particle such as `ex`) starts a new infraspecific
 *     level, except `var.` after `orth.` (`orth. var.` = orthographic variant) — so `Hook. f.`, `L. f. ssp.`,
 *     `Michx. f.` stay in the author;
 *  4. a `×` directly after an epithet starts an unnamed-hybrid formula that belongs to the name;
 *  5. an epithet-like word inside an author, when a `×` follows later, starts an unbracketed parentage
 *     formula (`Sarracenia ×bellii Mellich. leucophylla × rubra ssp. gulfensis`) which is dropped;
 *  6. everything else is author text of the current level.
 */
export function parseName(full: string): ParsedName {
  const notes: string[] = [];
  const cleaned = full.replace(/\[([^\]]*)\]/g, (_m, inner: string) => {
    notes.push(`[${inner.trim()}]`);
    return ' ';
  });
  const t = cleaned.split(/\s+/).filter((x) => x !== '');
  let i = 0;
  const take = (): string => {
    let tok = t[i++] ?? '';
    if (tok === '×' && i < t.length) tok = `× ${t[i++]}`;
    return tok;
  };
  const genus = take();
  const epithet = take();
  const infra: { marker: string; epithet: string }[] = [];
  const authorTokens: string[][] = [[]];
  let formula: string | null = null;
  let parentage: string | null = null;
  let depth = 0;
  for (; i < t.length; i++) {
    const tok = t[i]!;
    const cur = authorTokens[authorTokens.length - 1]!;
    if (depth === 0) {
      if (tok === '×' && cur.length === 0) {
        formula = t.slice(i).join(' ');
        break;
      }
      const prev = cur[cur.length - 1];
      if (tok in MARKERS && !(tok === 'var.' && prev === 'orth.') && isEpithet(t[i + 1])) {
        let ep = t[i + 1]!;
        i++;
        if (ep === '×' && i + 1 < t.length) ep = `× ${t[++i]}`;
        infra.push({ marker: MARKERS[tok]!, epithet: ep });
        authorTokens.push([]);
        continue;
      }
      if (cur.length > 0 && isEpithet(tok) && !tok.startsWith('×') && t.slice(i + 1).includes('×')) {
        parentage = t.slice(i).join(' ');
        break;
      }
    }
    for (const ch of tok) {
      if (ch === '(') depth++;
      else if (ch === ')') depth = Math.max(0, depth - 1);
    }
    cur.push(tok);
  }
  return {
    genus,
    epithet,
    infra,
    formula,
    authors: authorTokens.map((a) => a.join(' ')),
    parentage,
    notes,
  };
}

/**
 * USDA has 279 quadrinomials (`Carex viridula ssp. brachyrrhyncha var. elatior`, `Claytonia virginica
 * var. virginica f. lutea`). They keep every level, as USDA writes them, so no part of
 * the name is lost; set to false to keep only the taxon's own (last) level instead.
 */
const FULL_RANK_CHAIN = true;

/**
 * Canonical name without authors: genus + epithet (+ marker + infraspecific epithet) as USDA writes them
 * (`var.`, `ssp.`, `f.`, `×`), plus the rest of an unnamed-hybrid formula if the name is one
 * (`Pinus rigida × serotina`).
 */
export function canonicalName(p: ParsedName, fullChain = FULL_RANK_CHAIN): string {
  const parts = [p.genus, p.epithet];
  const levels = fullChain ? p.infra : p.infra.slice(-1);
  for (const lv of levels) parts.push(lv.marker, lv.epithet);
  if (p.formula) parts.push(p.formula);
  return parts.join(' ');
}

/**
 * Key for cross-source matching: genus + epithet (+ last marker + last epithet), `subsp.` read as `ssp.`;
 * hybrid formulas keep their formula so `Viburnum prunifolium × rufidulum` never matches `Viburnum prunifolium`.
 */
export function matchKey(p: ParsedName): string {
  return canonicalName(p, false);
}

/**
 * Authority following the last epithet. If the last level has none and it repeats the epithet of the
 * level above (autonym), the authority of that level is used; otherwise null.
 */
export function authorOf(p: ParsedName): string | null {
  if (p.formula) return null;
  const eps = [p.epithet, ...p.infra.map((x) => x.epithet)].map(stripHybrid);
  for (let k = eps.length - 1; k >= 0; k--) {
    const a = cleanAuthor(p, p.authors[k] ?? '');
    if (a !== '') return a;
    if (k === 0 || eps[k] !== eps[k - 1]) return null;
  }
  return null;
}

/**
 * Removes two data errors from author text: a repeated name (`Gardenia brighamii Gardenia brighamii`,
 * USDA GABR) and the literal note `, database artifact (pro sp.)` (USDA RHAS).
 */
function cleanAuthor(p: ParsedName, author: string): string {
  let a = author;
  const repeated = `${p.genus} ${p.epithet}`;
  if (a === repeated || a.startsWith(`${repeated} `)) a = a.slice(repeated.length).trim();
  a = a.replace(/,?\s*database artifact\b.*$/, '').trim();
  return a;
}

/** A misapplied name (`Hypolytrum nemorum sensu Parham, non Spreng.`). */
function isMisapplied(p: ParsedName): boolean {
  return /^sensu\b/.test(p.authors[p.authors.length - 1] ?? '');
}

export function slugify(s: string): string {
  return s
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .replace(/×/g, 'x')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function nonEmpty(s: string | undefined): string | null {
  const v = (s ?? '').trim();
  return v === '' ? null : v;
}

/** Colour cell → UPPERCASE tokens. Multi-valued cells would be split on `,` `;` `|` `/` (none occur). */
function colors(s: string | undefined): string[] | null {
  const v = nonEmpty(s);
  if (v === null) return null;
  const out = v
    .split(/\s*[,;|/]\s*/)
    .map((x) => x.trim().toUpperCase())
    .filter((x) => x !== '');
  return out.length ? [...new Set(out)] : null;
}

function bool(s: string | undefined): boolean | null {
  const v = (s ?? '').trim().toUpperCase();
  if (v === 'TRUE' || v === 'YES') return true;
  if (v === 'FALSE' || v === 'NO') return false;
  return null;
}

function pushUniqueCi(list: string[], seen: Set<string>, name: string): void {
  const key = name.toLowerCase();
  if (seen.has(key)) return;
  seen.add(key);
  list.push(name);
}

function json(v: unknown): string {
  return JSON.stringify(v);
}

/** `[\n{...},\n{...}\n]` — valid JSON with one record per line. */
function jsonLines(items: unknown[]): string {
  return items.length === 0 ? '[]' : `[\n${items.map(json).join(',\n')}\n]`;
}

// ---------------------------------------------------------------------------------------------
// Build
// ---------------------------------------------------------------------------------------------

export interface BuildStats {
  ranks: Record<string, number>;
  families: number;
  familiesWithCommonName: number;
  genera: number;
  plants: number;
  withTraits: number;
  withSynonyms: number;
  withNonEnglish: number;
  withVascan: number;
  vascanTaxa: number;
  vascanDirect: number;
  vascanViaSynonym: number;
  vascanUnmatched: string[];
  vascanNamesWithoutLanguage: number;
  slugCollisions: string[];
  warnings: string[];
}

export function build(dataDir: string): { dataset: Dataset; stats: BuildStats } {
  const warnings: string[] = [];
  const plantsCsv = readTable(resolve(dataDir, 'usda_plants.csv'), ',');
  const synCsv = readTable(resolve(dataDir, 'usda_synonyms.csv'), ',');
  const charCsv = readTable(resolve(dataDir, 'usda_plant_characteristics.csv'), ',');
  const higherCsv = readTable(resolve(dataDir, 'usda_higher_taxa.csv'), ',');
  const vDir = resolve(dataDir, 'vascan_traditional_use');
  const vTaxa = readTable(resolve(vDir, 'taxon.tsv'), '\t', false);
  const vNames = readTable(resolve(vDir, 'vernacularname.tsv'), '\t', false);
  const langMap = readTable(resolve(vDir, 'language-mapping.tsv'), '\t', false);

  // --- higher taxa: family / genus common names ---
  const familyCommon = new Map<string, string>();
  const genusCommon = new Map<string, string>();
  for (const r of higherCsv) {
    const first = (r.scientific_name ?? '').split(/\s+/)[0] ?? '';
    const cn = nonEmpty(r.common_name);
    if (!first || cn === null) continue;
    const target = r.rank === 'Family' ? familyCommon : r.rank === 'Genus' ? genusCommon : null;
    if (target && !target.has(first)) target.set(first, cn);
  }

  // --- accepted taxa: parse names ---
  interface Row {
    id: string;
    rank: string;
    parsed: ParsedName;
    canonical: string;
    genus: string;
    family: string;
    src: Record<string, string>;
  }
  const rows: Row[] = [];
  const seenIds = new Set<string>();
  for (const r of plantsCsv) {
    const id = r.symbol!;
    if (seenIds.has(id)) throw new Error(`duplicate symbol ${id}`);
    seenIds.add(id);
    const rank = r.rank!;
    if (!(rank in RANKS)) throw new Error(`${id}: unknown rank ${rank}`);
    const parsed = parseName(r.scientific_name!);
    const canonical = canonicalName(parsed);
    // Genus: the USDA genus column, except for 6 intergeneric hybrids where that column holds the
    // parent formula (`Aronia × Sorbus`, `Hordeum ? Leymus`); there the nothogenus of the name is used,
    // as USDA does for every other nothogenus (`×Calammophila`).
    let genus = r.genus!;
    if (genus !== parsed.genus) {
      if (/ [×?] /.test(genus) && parsed.genus.startsWith('×')) {
        warnings.push(`${id}: genus column "${genus}" is a parent formula; using nothogenus "${parsed.genus}"`);
        genus = parsed.genus;
      } else {
        throw new Error(`${id}: genus column "${genus}" does not match name "${r.scientific_name}"`);
      }
    }
    // Rank consistency: the last infraspecific marker must match the USDA rank.
    const last = parsed.infra[parsed.infra.length - 1];
    const expected = RANK_MARKER[rank];
    if (rank === 'Species') {
      if (parsed.infra.length > 0 && !parsed.formula) throw new Error(`${id}: species with infra: ${r.scientific_name}`);
    } else if (!last || last.marker !== expected) {
      throw new Error(`${id}: ${rank} parsed as "${canonical}" from "${r.scientific_name}"`);
    }
    for (const a of parsed.authors) {
      if (/(^|\s)(var|ssp|subsp)\.\s+[a-z×]/.test(a) && !/orth\. var\./.test(a)) {
        warnings.push(`${id}: author text contains a rank marker: "${a}"`);
      }
    }
    rows.push({ id, rank, parsed, canonical, genus, family: r.family!, src: r });
  }

  const byId = new Map(rows.map((r) => [r.id, r]));
  const byCanonical = new Map<string, Row[]>();
  for (const r of rows) {
    const list = byCanonical.get(r.canonical) ?? [];
    list.push(r);
    byCanonical.set(r.canonical, list);
  }
  /** Among rows sharing a name: correctly applied names before misapplied (`sensu`) ones, then by id. */
  const preference = (a: Row, b: Row): number => Number(isMisapplied(a.parsed)) - Number(isMisapplied(b.parsed)) || byString(a.id, b.id);
  const speciesByCanonical = new Map<string, string>();
  for (const r of [...rows].filter((x) => x.rank === 'Species').sort(preference)) {
    if (!speciesByCanonical.has(r.canonical)) speciesByCanonical.set(r.canonical, r.id);
  }

  // --- slugs: unique across species. On a collision the preferred row (see `preference`) keeps the
  // plain slug and every other row of the group gets `-<lowercased id>`.
  const slugOf = new Map<string, string>();
  const slugCollisions: string[] = [];
  {
    const groups = new Map<string, Row[]>();
    for (const r of [...rows].sort(preference)) {
      const s = slugify(r.canonical);
      const g = groups.get(s) ?? [];
      g.push(r);
      groups.set(s, g);
    }
    const used = new Set(groups.keys());
    for (const [s, group] of [...groups].sort((a, b) => byString(a[0], b[0]))) {
      slugOf.set(group[0]!.id, s);
      if (group.length === 1) continue;
      slugCollisions.push(`${s}: ${group.map((r) => r.id).join(', ')} (kept by ${group[0]!.id})`);
      for (const r of group.slice(1)) {
        const suffixed = `${s}-${r.id.toLowerCase()}`;
        if (used.has(suffixed)) throw new Error(`slug ${suffixed} still collides`);
        used.add(suffixed);
        slugOf.set(r.id, suffixed);
      }
    }
  }

  // --- synonyms ---
  const synonymsOf = new Map<string, string[]>();
  const synonymKeyToAccepted = new Map<string, string[]>();
  for (const r of synCsv) {
    const acc = r.accepted_symbol!;
    if (!byId.has(acc)) {
      warnings.push(`synonym row for unknown accepted symbol ${acc}`);
      continue;
    }
    const name = nonEmpty(r.scientific_name_with_author);
    if (name === null) continue;
    const list = synonymsOf.get(acc) ?? [];
    if (!list.includes(name)) list.push(name);
    synonymsOf.set(acc, list);
    const key = matchKey(parseName(name));
    const accs = synonymKeyToAccepted.get(key) ?? [];
    if (!accs.includes(acc)) accs.push(acc);
    synonymKeyToAccepted.set(key, accs);
  }

  // --- characteristics ---
  const traitsOf = new Map<string, Record<string, string>>();
  for (const r of charCsv) {
    const id = r.symbol!;
    if (!byId.has(id)) {
      warnings.push(`characteristics row for unknown symbol ${id}`);
      continue;
    }
    traitsOf.set(id, r);
  }

  // --- VASCAN: languages, taxon matching, names ---
  const langKey = new Map<string, string>();
  for (const r of langMap) {
    const dwc = nonEmpty(r.dwcValue);
    if (dwc === null) continue;
    const code1 = nonEmpty(r['ISO 639-1']);
    const key = code1 ? code1.toLowerCase() : dwc.replace(/^ISO 639:/, '').toLowerCase();
    const prev = langKey.get(dwc);
    if (prev !== undefined && prev !== key) throw new Error(`language mapping conflict for ${dwc}`);
    langKey.set(dwc, key);
  }
  const accKeyToId = new Map<string, string[]>();
  for (const r of [...rows].sort(preference)) {
    if (isMisapplied(r.parsed)) continue; // a misapplied name is not the taxon VASCAN means
    const k = matchKey(r.parsed);
    const list = accKeyToId.get(k) ?? [];
    list.push(r.id);
    accKeyToId.set(k, list);
  }
  const vascanTarget = new Map<string, string>(); // VASCAN taxon id → USDA symbol
  let vascanDirect = 0;
  let vascanViaSynonym = 0;
  const vascanUnmatched: string[] = [];
  for (const vt of vTaxa) {
    const name = vt.scientificName!;
    const p = parseName(name);
    const key = matchKey(p);
    const direct = accKeyToId.get(key);
    if (direct && direct.length === 1) {
      vascanTarget.set(vt.id!, direct[0]!);
      vascanDirect++;
      continue;
    }
    if (direct && direct.length > 1) warnings.push(`VASCAN ${vt.id} "${name}" matches several: ${direct.join(', ')}`);
    const viaSyn = synonymKeyToAccepted.get(key);
    if (!direct && viaSyn && viaSyn.length === 1) {
      vascanTarget.set(vt.id!, viaSyn[0]!);
      vascanViaSynonym++;
      continue;
    }
    if (!direct && viaSyn && viaSyn.length > 1) {
      warnings.push(`VASCAN ${vt.id} "${name}" is a synonym of several: ${viaSyn.join(', ')}`);
    }
    vascanUnmatched.push(`${vt.id} ${name}`);
  }
  const vascanNamesOf = new Map<string, { lang: string; name: string }[]>();
  let vascanNamesWithoutLanguage = 0;
  for (const vn of vNames) {
    const target = vascanTarget.get(vn.id!);
    const name = nonEmpty(vn.vernacularName);
    const langRaw = nonEmpty(vn.language);
    if (langRaw === null) {
      vascanNamesWithoutLanguage++;
      continue;
    }
    if (!target || name === null) continue;
    const lang = langKey.get(langRaw) ?? langRaw.replace(/^ISO 639:/, '').toLowerCase();
    const list = vascanNamesOf.get(target) ?? [];
    list.push({ lang, name });
    vascanNamesOf.set(target, list);
  }

  // --- species records ---
  const species: SpeciesRecord[] = [];
  const speciesSources: Record<string, string[]> = {};
  let withNonEnglish = 0;
  for (const r of [...rows].sort((a, b) => byString(a.id, b.id))) {
    const src = r.src;
    const commonName = nonEmpty(src.common_name);
    const duration = nonEmpty(src.duration);
    let plantId: string | null;
    if (r.rank === 'Species') plantId = r.id;
    else plantId = speciesByCanonical.get(`${r.parsed.genus} ${r.parsed.epithet}`) ?? null;
    if (plantId === null) warnings.push(`${r.id}: no species-rank taxon for "${r.canonical}"`);

    // common names
    const names = new Map<string, { list: string[]; seen: Set<string> }>();
    const add = (lang: string, name: string): void => {
      let e = names.get(lang);
      if (!e) {
        e = { list: [], seen: new Set() };
        names.set(lang, e);
      }
      pushUniqueCi(e.list, e.seen, name);
    };
    if (commonName !== null) add('en', commonName);
    const vn = vascanNamesOf.get(r.id) ?? [];
    for (const x of vn) if (x.lang === 'en') add('en', x.name);
    for (const x of vn) if (x.lang !== 'en') add(x.lang, x.name);
    const langs = [...names.keys()].sort((a, b) => (a === 'en' ? -1 : b === 'en' ? 1 : byString(a, b)));
    const commonNames: Record<string, string[]> = {};
    for (const l of langs) commonNames[l] = names.get(l)!.list;
    if (langs.some((l) => l !== 'en')) withNonEnglish++;
    if (vn.length > 0) speciesSources[r.id] = ['vascan'];

    const tr = traitsOf.get(r.id);
    const flower: ColorTrait = {
      color: colors(tr?.flower_color),
      conspicuous: bool(tr?.flower_conspicuous),
    };
    const foliage: FoliageTrait = {
      color: colors(tr?.foliage_color),
      texture: nonEmpty(tr?.foliage_texture)?.toLowerCase() ?? null,
    };
    const fruit: ColorTrait = {
      color: colors(tr?.fruit_seed_color),
      conspicuous: bool(tr?.fruit_seed_conspicuous),
    };
    species.push({
      id: r.id,
      slug: slugOf.get(r.id)!,
      scientific_name: r.canonical,
      common_name: commonName,
      rank: RANKS[r.rank]!,
      status: 'accepted',
      duration:
        duration === null
          ? null
          : duration
              .split(',')
              .map((d) => d.trim().toLowerCase())
              .filter((d) => d),
      author: authorOf(r.parsed),
      bibliography: null,
      year: null,
      genus_id: r.genus,
      genus: r.genus,
      family_id: r.family,
      family: r.family,
      family_common_name: familyCommon.get(r.family) ?? null,
      plant_id: plantId,
      common_names: commonNames,
      synonyms: synonymsOf.get(r.id) ?? [],
      flower,
      foliage,
      fruit_or_seed: fruit,
      growth_rate: nonEmpty(tr?.growth_rate)?.toUpperCase() ?? null,
    });
  }

  // --- families, genera, plants ---
  const familyNames = [...new Set(rows.map((r) => r.family))].sort(byString);
  const families: FamilyRecord[] = familyNames.map((name) => ({
    id: name,
    slug: slugify(name),
    name,
    common_name: familyCommon.get(name) ?? null,
  }));
  const genusFamily = new Map<string, string>();
  for (const r of rows) {
    const f = genusFamily.get(r.genus);
    if (f !== undefined && f !== r.family) throw new Error(`genus ${r.genus} in two families: ${f}, ${r.family}`);
    genusFamily.set(r.genus, r.family);
  }
  const genus: GenusRecord[] = [...genusFamily.keys()].sort(byString).map((name) => ({
    id: name,
    slug: slugify(name),
    name,
    common_name: genusCommon.get(name) ?? null,
    family_id: genusFamily.get(name)!,
    family: genusFamily.get(name)!,
  }));
  for (const list of [families.map((f) => f.slug), genus.map((g) => g.slug)]) {
    if (new Set(list).size !== list.length) throw new Error('family/genus slug collision');
  }
  const plants: PlantRecord[] = species
    .filter((s) => s.rank === 'species')
    .map((s) => ({
      id: s.id,
      slug: s.slug,
      scientific_name: s.scientific_name,
      common_name: s.common_name,
      genus_id: s.genus_id,
      family_id: s.family_id,
      main_species_id: s.id,
    }));

  const ranks: Record<string, number> = {};
  for (const s of species) ranks[s.rank] = (ranks[s.rank] ?? 0) + 1;
  const dataset: Dataset = {
    dataset: { last_modified: LAST_MODIFIED, sources: SOURCES },
    families,
    genus,
    species,
    plants,
    species_sources: speciesSources,
  };
  return {
    dataset,
    stats: {
      ranks,
      families: families.length,
      familiesWithCommonName: families.filter((f) => f.common_name !== null).length,
      genera: genus.length,
      plants: plants.length,
      withTraits: traitsOf.size,
      withSynonyms: species.filter((s) => s.synonyms.length > 0).length,
      withNonEnglish,
      withVascan: Object.keys(speciesSources).length,
      vascanTaxa: vTaxa.length,
      vascanDirect,
      vascanViaSynonym,
      vascanUnmatched,
      vascanNamesWithoutLanguage,
      slugCollisions,
      warnings,
    },
  };
}

/** Serialises the dataset: valid JSON, one record per line, keys in a fixed order. */
export function serialize(d: Dataset): string {
  const sources = Object.keys(d.species_sources).sort(byString);
  const ss = sources.length === 0 ? '{}' : `{\n${sources.map((k) => `${json(k)}:${json(d.species_sources[k])}`).join(',\n')}\n}`;
  return (
    `{"dataset":${json(d.dataset)},\n` +
    `"families":${jsonLines(d.families)},\n` +
    `"genus":${jsonLines(d.genus)},\n` +
    `"species":${jsonLines(d.species)},\n` +
    `"plants":${jsonLines(d.plants)},\n` +
    `"species_sources":${ss}}\n`
  );
}

// ---------------------------------------------------------------------------------------------
// CLI
// ---------------------------------------------------------------------------------------------

function main(argv: string[]): void {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  let dataDir = resolve(root, '../shared/data');
  let outFile = resolve(root, 'fixtures/taxa.json');
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--data' || a === '--out') {
      const v = argv[++i];
      if (!v) throw new Error(`${a} needs a value`);
      if (a === '--data') dataDir = resolve(v);
      else outFile = resolve(v);
    } else if (a.startsWith('--data=')) dataDir = resolve(a.slice(7));
    else if (a.startsWith('--out=')) outFile = resolve(a.slice(6));
    else throw new Error(`unknown argument ${a} (usage: build-data.ts [--data DIR] [--out FILE])`);
  }
  const { dataset, stats } = build(dataDir);
  const text = serialize(dataset);
  JSON.parse(text); // sanity: must be valid JSON
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, text);

  const out = (s: string): void => void process.stdout.write(`${s}\n`);
  out(`wrote ${outFile} (${Buffer.byteLength(text)} bytes)`);
  out(`data: ${dataDir}`);
  out(
    `species records: ${dataset.species.length} (species ${stats.ranks.species ?? 0}, var ${stats.ranks.var ?? 0}, ` +
      `subsp ${stats.ranks.subsp ?? 0}, f ${stats.ranks.f ?? 0})`,
  );
  out(`families: ${stats.families} (${stats.familiesWithCommonName} with a common name)`);
  out(`genera: ${stats.genera}`);
  out(`plants: ${stats.plants}`);
  out(`species with traits: ${stats.withTraits}`);
  out(`species with >=1 synonym: ${stats.withSynonyms}`);
  out(`species with VASCAN names: ${stats.withVascan}; with non-English names: ${stats.withNonEnglish}`);
  out(
    `VASCAN taxa: ${stats.vascanTaxa}; matched directly ${stats.vascanDirect}, via synonym ${stats.vascanViaSynonym}, ` +
      `unmatched ${stats.vascanUnmatched.length}; names without language dropped: ${stats.vascanNamesWithoutLanguage}`,
  );
  out(`slug collisions: ${stats.slugCollisions.length}${stats.slugCollisions.map((c) => `\n  ${c}`).join('')}`);
  if (stats.warnings.length) out(`notes (${stats.warnings.length}):\n  ${stats.warnings.join('\n  ')}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2));
}
