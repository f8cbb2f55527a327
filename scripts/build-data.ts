/**
 * Builds `fixtures/taxa.json` (type `Dataset`) from the real source data in `../shared/data`
 * (USDA NRCS PLANTS + VASCAN traditional-use vernacular names). See `fixtures/README.md` for the
 * sources, licences, every mapping rule and the stages in `build-data/`.
 *
 *   npx tsx scripts/build-data.ts [--data DIR] [--out FILE]
 *
 * Deterministic: the same input gives byte-identical output. No dependencies beyond Node.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readSources } from './build-data/csv';
import { buildDataset } from './build-data/records';
import { writeFixture } from './build-data/write';

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
  const { dataset, stats } = buildDataset(readSources(dataDir));
  const bytes = writeFixture(outFile, dataset);

  const out = (s: string): void => void process.stdout.write(`${s}\n`);
  out(`wrote ${outFile} (${bytes} bytes)`);
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
