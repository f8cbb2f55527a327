import type { Table } from './csv';
import { canonicalName, isMisapplied, parseName, slugify, type ParsedName } from './names';
import { byString } from './order';

/** USDA ranks, mapped to the `rank` of a species record. */
export const RANKS: Record<string, string> = {
  Species: 'species',
  Variety: 'var',
  Subspecies: 'subsp',
  Form: 'f',
};

/** The marker a USDA row of a given rank must end with. */
const RANK_MARKER: Record<string, string> = { Variety: 'var.', Subspecies: 'ssp.', Form: 'f.' };

/** One accepted USDA taxon, its name parsed and checked against its rank and genus. */
export interface Taxon {
  id: string;
  rank: string;
  parsed: ParsedName;
  canonical: string;
  genus: string;
  family: string;
  src: Record<string, string>;
}

/** Stage 2: the accepted taxa of `usda_plants.csv`; a row whose name contradicts its rank or genus stops the build. */
export function readTaxa(plants: Table, warnings: string[]): Taxon[] {
  const taxa: Taxon[] = [];
  const seenIds = new Set<string>();
  for (const r of plants) {
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
    taxa.push({ id, rank, parsed, canonical, genus, family: r.family!, src: r });
  }
  return taxa;
}

/** Among taxa sharing a name: correctly applied names before misapplied (`sensu`) ones, then by id. */
export const preference = (a: Taxon, b: Taxon): number => Number(isMisapplied(a.parsed)) - Number(isMisapplied(b.parsed)) || byString(a.id, b.id);

/** The species-rank taxon of each canonical name, for a variety's or subspecies' `plant_id`. */
export function speciesByName(taxa: Taxon[]): Map<string, string> {
  const speciesByCanonical = new Map<string, string>();
  for (const r of [...taxa].filter((x) => x.rank === 'Species').sort(preference)) {
    if (!speciesByCanonical.has(r.canonical)) speciesByCanonical.set(r.canonical, r.id);
  }
  return speciesByCanonical;
}

/**
 * Slugs, unique across species. On a collision the preferred taxon (see `preference`) keeps the plain
 * slug and every other taxon of the group gets `-<lowercased id>`.
 */
export function assignSlugs(taxa: Taxon[]): { slugOf: Map<string, string>; slugCollisions: string[] } {
  const slugOf = new Map<string, string>();
  const slugCollisions: string[] = [];
  const groups = new Map<string, Taxon[]>();
  for (const r of [...taxa].sort(preference)) {
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
  return { slugOf, slugCollisions };
}
