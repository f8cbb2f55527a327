import { readFileSync } from 'node:fs';
import { inject } from 'vitest';
import type { Dataset, FamilyRecord, GenusRecord, PlantRecord, SpeciesRecord } from '../../src/core/records';

/**
 * A few hundred records of the committed fixture, chosen by fixed rules and closed under its
 * relations (every species with its genus, family and plant, every plant with its main species,
 * genus and family, every genus with its family), so the compiler can build it in tens of
 * milliseconds where the whole fixture takes seconds. Chosen from the raw lines (one record a line,
 * fixtures/README.md): only the chosen lines are parsed, a tenth of the time of parsing the whole.
 *
 * - species: every 600th, and spread over each kind a compiler could get wrong: no common name,
 *   a mark or sign (`×`, `é`) in a scientific name, a common name, a synonym or a name in French,
 *   common names equal but for an accent (`parásita`, `parasita`), extra sources (every 40th with
 *   VASCAN names); and all
 *   species of two genera and one plant, so that child lists run over several pages;
 * - genera, families and plants: every 300th, 60th and 1500th, and genera with a sign in the name.
 *
 * Each array is in the reverse of the fixture's order, so a compiler that kept its input order
 * rather than sorting by id would show it.
 */
export function datasetSample(): Dataset {
  if (sample) return sample;
  // Chosen once for the whole run where a global setup gave it (dataset-sample-setup.ts): choosing
  // reads the whole fixture, half a second that a mutation run would pay again for every mutant.
  const given = inject('datasetSample');
  return (sample = given === undefined ? chooseSample() : (JSON.parse(given) as Dataset));
}

/** The sample, chosen from the fixture afresh. */
export function chooseSample(): Dataset {
  return choose(readFileSync(new URL('../../fixtures/taxa.json', import.meta.url), 'utf8'));
}

let sample: Dataset | undefined;

const SPECIES_STRIDE = 600;
const GENUS_STRIDE = 300;
const FAMILY_STRIDE = 60;
const PLANT_STRIDE = 1500;
/** Records of each kind below, spread evenly over the lines of that kind. */
const PER_KIND = 6;
/** A kind of record, by its line; `signed`: found only in lines with a mark or sign, so the others (most) are not read again. */
interface Kind {
  test: RegExp;
  signed?: boolean;
}
const SPECIES_KINDS: Kind[] = [
  { test: /"common_name":null/ },
  { test: /"scientific_name":"[^"]*[^ -~]/, signed: true },
  { test: /"common_name":"[^"]*[^ -~]/, signed: true },
  { test: /"synonyms":\["[^\]]*[^ -~]/, signed: true },
  { test: /"fr":\["[^\]]*[^ -~]/, signed: true },
];
/** Every species matching this. */
const WHOLE = /"(?:common_name":"par[aá]sita|genus_id":"(?:Abies|Achnatherum)|plant_id":"ASLE8)"/;
const GENUS_KINDS: Kind[] = [{ test: /"name":"[^"]*[^ -~]/, signed: true }];

/** The record lines of one array of the fixture, by id, in the fixture's order. */
function records(lines: string[], name: string): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = lines.indexOf(`"${name}":[`) + 1; !lines[i]!.startsWith(']'); i++) {
    const line = lines[i]!.endsWith(',') ? lines[i]!.slice(0, -1) : lines[i]!;
    if (!line.startsWith('{"id":"')) throw new Error(`fixture line ${i + 1} is not a record of ${name}`);
    out.set(line.slice(7, line.indexOf('"', 7)), line);
  }
  return out;
}

/** Every `stride`th id, and `PER_KIND` ids spread over the lines each pattern of `kinds` matches. */
function spread(lines: Map<string, string>, stride: number, kinds: Kind[]): string[] {
  const ids = [...lines.keys()];
  const chosen = ids.filter((_, i) => i % stride === 0);
  const signed = ids.filter((id) => /[^ -~]/.test(lines.get(id)!));
  for (const kind of kinds) {
    const matching = (kind.signed ? signed : ids).filter((id) => kind.test.test(lines.get(id)!));
    const step = Math.max(1, Math.floor(matching.length / PER_KIND));
    chosen.push(...matching.filter((_, i) => i % step === 0).slice(0, PER_KIND));
  }
  return chosen;
}

function choose(text: string): Dataset {
  const lines = text.split('\n');
  const all = {
    families: records(lines, 'families'),
    genus: records(lines, 'genus'),
    species: records(lines, 'species'),
    plants: records(lines, 'plants'),
  };
  const sources: Record<string, string[]> = JSON.parse(`{${lines.slice(lines.indexOf('"species_sources":{') + 1, lines.indexOf('}}')).join('')}}`);
  const { dataset } = JSON.parse(`${lines[0]!.slice(0, -1)}}`) as Pick<Dataset, 'dataset'>;

  const speciesIds = new Set(spread(all.species, SPECIES_STRIDE, SPECIES_KINDS));
  for (const [id, line] of all.species) if (WHOLE.test(line)) speciesIds.add(id);
  for (const id of Object.keys(sources).filter((_, i) => i % 40 === 0)) speciesIds.add(id);
  const plantIds = new Set([...all.plants.keys()].filter((_, i) => i % PLANT_STRIDE === 0));
  const genusIds = new Set(spread(all.genus, GENUS_STRIDE, GENUS_KINDS));
  const familyIds = new Set([...all.families.keys()].filter((_, i) => i % FAMILY_STRIDE === 0));

  const parse = <T>(map: Map<string, string>, ids: Set<string>): T[] => [...map].filter(([id]) => ids.has(id)).map(([, line]) => JSON.parse(line) as T);
  // Plants bring their main species, species their plant, until neither brings a new one.
  let species: SpeciesRecord[] = [];
  for (let size = -1; size !== speciesIds.size; ) {
    size = speciesIds.size;
    for (const plant of parse<PlantRecord>(all.plants, plantIds)) speciesIds.add(plant.main_species_id);
    species = parse<SpeciesRecord>(all.species, speciesIds);
    for (const s of species) if (s.plant_id !== null) plantIds.add(s.plant_id);
  }
  for (const s of species) genusIds.add(s.genus_id);
  const plants = parse<PlantRecord>(all.plants, plantIds);
  for (const p of plants) genusIds.add(p.genus_id);
  const genus = parse<GenusRecord>(all.genus, genusIds);
  for (const g of genus) familyIds.add(g.family_id);
  for (const r of [...species, ...plants]) familyIds.add(r.family_id);
  const families = parse<FamilyRecord>(all.families, familyIds);

  return {
    dataset,
    families: families.reverse(),
    genus: genus.reverse(),
    species: species.reverse(),
    plants: plants.reverse(),
    species_sources: Object.fromEntries(Object.entries(sources).filter(([id]) => speciesIds.has(id))),
  };
}
