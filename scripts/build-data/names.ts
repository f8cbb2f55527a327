/** Infraspecific rank markers as written in the sources, mapped to the marker used in canonical names. */
const MARKERS: Record<string, string> = { 'var.': 'var.', 'ssp.': 'ssp.', 'subsp.': 'ssp.', 'f.': 'f.' };

/**
 * Lower-case words that occur inside author strings and must never be read as an epithet
 * (`Hook. f. ex Benth.`, `sensu Ohwi 1941, non ...`, `Sessé y Lacasta`, `(pro sp.)` ...).
 */
const AUTHOR_WORDS = new Set('ex in et and de del della des da do dos du la le van von der den ter zu y non nec sensu pro emend auct hort al'.split(' '));

/** A scientific name split into its parts; the author text of each level kept apart from the name. */
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
export function isMisapplied(p: ParsedName): boolean {
  return /^sensu\b/.test(p.authors[p.authors.length - 1] ?? '');
}

/** The URL form of a name: accents stripped, `×` read as `x`, every other run of non-alphanumerics one `-`. */
export function slugify(s: string): string {
  return s
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .replace(/×/g, 'x')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
