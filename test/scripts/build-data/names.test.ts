/** `npm run data:build`'s pure stages: CSV rows, scientific-name parsing, slugs, on real names from ../shared/data. */
import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../../scripts/build-data/csv';
import { authorOf, canonicalName, isMisapplied, matchKey, parseName, slugify } from '../../../scripts/build-data/names';
import { assignSlugs, readTaxa } from '../../../scripts/build-data/taxa';

/** Lines of usda_plants.csv as written there (RHAS and HYNE3 are quoted: their names hold commas). */
const PLANTS_CSV = [
  'symbol,scientific_name,common_name,group_name,rank,family,genus,duration,growth_habit',
  'HYNE3,"Hypolytrum nemorum sensu Parham, non Spreng.",,Monocot,Species,Cyperaceae,Hypolytrum,,',
  'HYNE4,Hypolytrum nemorum (Vahl) Spreng.,woodland hypolytrum,Monocot,Species,Cyperaceae,Hypolytrum,Perennial,Graminoid',
  'LEPI15,×Leydeum piperi (Bowden) Barkworth [Hordeum jubatum × Leymus triticoides],hybrid ryegrass,Monocot,Species,Poaceae,Hordeum ? Leymus,Perennial,Graminoid',
].join('\n');

describe('parseCsv', () => {
  it('splits quoted fields with commas and keeps empty cells', () => {
    const rows = parseCsv(PLANTS_CSV);
    expect(rows).toHaveLength(4);
    expect(rows[1]).toEqual(['HYNE3', 'Hypolytrum nemorum sensu Parham, non Spreng.', '', 'Monocot', 'Species', 'Cyperaceae', 'Hypolytrum', '', '']);
    expect(rows[3]![6]).toBe('Hordeum ? Leymus');
  });

  it('reads doubled quotes, CRLF and tab-separated text', () => {
    expect(parseCsv('a,"say ""hi"", twice"\r\nb,c\r\n')).toEqual([
      ['a', 'say "hi", twice'],
      ['b', 'c'],
    ]);
    expect(parseCsv('id\tvernacularName\n1\tsapin baumier\n', '\t')).toEqual([
      ['id', 'vernacularName'],
      ['1', 'sapin baumier'],
    ]);
  });
});

/** Real names (USDA symbol or VASCAN taxon id) with their parts, worked out by hand. */
const NAMES: { source: string; name: string; canonical: string; key: string; author: string | null; slug: string }[] = [
  {
    source: 'USDA ABLAL, an autonym: the authority of the species level',
    name: 'Abies lasiocarpa (Hook.) Nutt. var. lasiocarpa',
    canonical: 'Abies lasiocarpa var. lasiocarpa',
    key: 'Abies lasiocarpa var. lasiocarpa',
    author: '(Hook.) Nutt.',
    slug: 'abies-lasiocarpa-var-lasiocarpa',
  },
  {
    source: 'USDA CAVIE, a quadrinomial: every level in the name, the last one in the key',
    name: 'Carex viridula Michx. ssp. brachyrrhyncha (Celak.) B. Schmid var. elatior (Schltdl.) Crins',
    canonical: 'Carex viridula ssp. brachyrrhyncha var. elatior',
    key: 'Carex viridula var. elatior',
    author: '(Schltdl.) Crins',
    slug: 'carex-viridula-ssp-brachyrrhyncha-var-elatior',
  },
  {
    source: 'USDA CAHEN: `L. f.` (filius) stays in the author',
    name: 'Carex heleonastes L. f. ssp. neurochlaena (T. Holm) Böcher',
    canonical: 'Carex heleonastes ssp. neurochlaena',
    key: 'Carex heleonastes ssp. neurochlaena',
    author: '(T. Holm) Böcher',
    slug: 'carex-heleonastes-ssp-neurochlaena',
  },
  {
    source: 'USDA DICR7: a trailing `f.` is the author',
    name: 'Dichelachne crinita (L. f.) Hook. f.',
    canonical: 'Dichelachne crinita',
    key: 'Dichelachne crinita',
    author: '(L. f.) Hook. f.',
    slug: 'dichelachne-crinita',
  },
  {
    source: 'USDA OSAMM: `f. ex` is part of the author, not a form named `ex`',
    name: 'Osmanthus americanus (L.) Benth. & Hook. f. ex A. Gray var. megacarpus (Small) P.S. Greene',
    canonical: 'Osmanthus americanus var. megacarpus',
    key: 'Osmanthus americanus var. megacarpus',
    author: '(Small) P.S. Greene',
    slug: 'osmanthus-americanus-var-megacarpus',
  },
  {
    source: 'USDA BRRUC2: `orth. var.` is an orthographic variant, not a rank',
    name: 'Brachypodium rupestre (Host) Roem. & Schult. orth. var. ssp. caespitosum (Host) H. Scholz, orth. var.',
    canonical: 'Brachypodium rupestre ssp. caespitosum',
    key: 'Brachypodium rupestre ssp. caespitosum',
    author: '(Host) H. Scholz, orth. var.',
    slug: 'brachypodium-rupestre-ssp-caespitosum',
  },
  {
    source: 'USDA PIRI2: an unnamed hybrid formula is the name',
    name: 'Pinus rigida × serotina [unnamed hybrid]',
    canonical: 'Pinus rigida × serotina',
    key: 'Pinus rigida × serotina',
    author: null,
    slug: 'pinus-rigida-x-serotina',
  },
  {
    source: 'USDA PHAUA8: a formula after an infraspecific epithet',
    name: 'Phragmites australis (Cav.) Trin. ex Steud. ssp. americanus × ssp. australis [unnamed hybrid]',
    canonical: 'Phragmites australis ssp. americanus × ssp. australis',
    key: 'Phragmites australis ssp. americanus × ssp. australis',
    author: null,
    slug: 'phragmites-australis-ssp-americanus-x-ssp-australis',
  },
  {
    source: 'USDA SABE10: unbracketed parentage after the author is dropped',
    name: 'Sarracenia ×bellii Mellich. leucophylla × rubra ssp. gulfensis',
    canonical: 'Sarracenia ×bellii',
    key: 'Sarracenia ×bellii',
    author: 'Mellich.',
    slug: 'sarracenia-xbellii',
  },
  {
    source: 'USDA CADO7: a nothogenus, its bracketed parentage removed',
    name: '×Calammophila don-hensonii Reznicek & E.J. Judziewicz [Ammophila breviligulata × Calamagrostis canadensis]',
    canonical: '×Calammophila don-hensonii',
    key: '×Calammophila don-hensonii',
    author: 'Reznicek & E.J. Judziewicz',
    slug: 'xcalammophila-don-hensonii',
  },
  {
    source: 'USDA GABR: the repeated name is not an author',
    name: 'Gardenia brighamii Gardenia brighamii',
    canonical: 'Gardenia brighamii',
    key: 'Gardenia brighamii',
    author: null,
    slug: 'gardenia-brighamii',
  },
  {
    source: 'USDA RHAS: the `database artifact` note is cut from the author',
    name: 'Rhus ×ashei (Small) Greene (pro sp.), database artifact (pro sp.) [glabra × michauxii]',
    canonical: 'Rhus ×ashei',
    key: 'Rhus ×ashei',
    author: '(Small) Greene (pro sp.)',
    slug: 'rhus-xashei',
  },
  {
    source: 'VASCAN 11: an autonym below a subspecies',
    name: 'Achillea millefolium ssp. lanulosa (Nuttall) Piper var. lanulosa',
    canonical: 'Achillea millefolium ssp. lanulosa var. lanulosa',
    key: 'Achillea millefolium var. lanulosa',
    author: '(Nuttall) Piper',
    slug: 'achillea-millefolium-ssp-lanulosa-var-lanulosa',
  },
];

describe('scientific names', () => {
  it.each(NAMES)('$source', ({ name, canonical, key, author, slug }) => {
    const parsed = parseName(name);
    expect(canonicalName(parsed), name).toBe(canonical);
    expect(matchKey(parsed), name).toBe(key);
    expect(authorOf(parsed), name).toBe(author);
    expect(slugify(canonicalName(parsed)), name).toBe(slug);
  });

  it('keeps each level with its own author text, and what it removed', () => {
    expect(parseName('Carex viridula Michx. ssp. brachyrrhyncha (Celak.) B. Schmid var. elatior (Schltdl.) Crins')).toEqual({
      genus: 'Carex',
      epithet: 'viridula',
      infra: [
        { marker: 'ssp.', epithet: 'brachyrrhyncha' },
        { marker: 'var.', epithet: 'elatior' },
      ],
      formula: null,
      authors: ['Michx.', '(Celak.) B. Schmid', '(Schltdl.) Crins'],
      parentage: null,
      notes: [],
    });
    const bellii = parseName('Sarracenia ×bellii Mellich. leucophylla × rubra ssp. gulfensis');
    expect(bellii.parentage).toBe('leucophylla × rubra ssp. gulfensis');
    expect(bellii.infra).toEqual([]);
    expect(parseName('Pinus rigida × serotina [unnamed hybrid]')).toMatchObject({ formula: '× serotina', notes: ['[unnamed hybrid]'] });
  });

  it('never reads `orth. var.` as a rank, even before a lower-case word (a constructed name: no source has one)', () => {
    const parsed = parseName('Brachypodium rupestre (Host) Roem. & Schult. orth. var. caespitosum');
    expect(parsed.infra).toEqual([]);
    expect(authorOf(parsed)).toBe('(Host) Roem. & Schult. orth. var. caespitosum');
  });

  it('reads `subsp.` as `ssp.`, so VASCAN and USDA spellings share a key', () => {
    const usda = parseName('Alnus incana (L.) Moench ssp. rugosa (Du Roi) R.T. Clausen');
    expect(matchKey(parseName('Alnus incana subsp. rugosa (Du Roi) R.T. Clausen'))).toBe(matchKey(usda));
    expect(matchKey(usda)).toBe('Alnus incana ssp. rugosa');
  });

  it('keeps a hybrid formula apart from its first parent (USDA VIPR2 against VASCAN 537)', () => {
    expect(matchKey(parseName('Viburnum prunifolium × rufidulum [unnamed hybrid]'))).toBe('Viburnum prunifolium × rufidulum');
    expect(matchKey(parseName('Viburnum prunifolium L.'))).toBe('Viburnum prunifolium');
  });

  it('knows a misapplied name (USDA HYNE3) from the correctly applied one (HYNE4)', () => {
    const hyne3 = parseName('Hypolytrum nemorum sensu Parham, non Spreng.');
    expect(isMisapplied(hyne3)).toBe(true);
    expect(authorOf(hyne3)).toBe('sensu Parham, non Spreng.');
    expect(isMisapplied(parseName('Hypolytrum nemorum (Vahl) Spreng.'))).toBe(false);
  });

  it('slugifies accents away and collapses punctuation (USDA CABA31)', () => {
    expect(slugify('Caloplaca baueri (Müll. Arg.) Zahlbr.')).toBe('caloplaca-baueri-mull-arg-zahlbr');
  });
});

describe('accepted taxa', () => {
  const [header, ...cells] = parseCsv(PLANTS_CSV);
  const table = cells.map((row) => Object.fromEntries(header!.map((h, j) => [h, row[j]!])));

  it('uses the nothogenus where the genus column holds a parent formula (USDA LEPI15)', () => {
    const warnings: string[] = [];
    const lepi = readTaxa(table, warnings).find((t) => t.id === 'LEPI15')!;
    expect(lepi.genus).toBe('×Leydeum');
    expect(lepi.canonical).toBe('×Leydeum piperi');
    expect(warnings).toEqual(['LEPI15: genus column "Hordeum ? Leymus" is a parent formula; using nothogenus "×Leydeum"']);
  });

  it('gives the plain slug to the correctly applied name on a collision (HYNE4 over HYNE3)', () => {
    const { slugOf, slugCollisions } = assignSlugs(readTaxa(table, []));
    expect(slugOf.get('HYNE4')).toBe('hypolytrum-nemorum');
    expect(slugOf.get('HYNE3')).toBe('hypolytrum-nemorum-hyne3');
    expect(slugOf.get('LEPI15')).toBe('xleydeum-piperi');
    expect(slugCollisions).toEqual(['hypolytrum-nemorum: HYNE4, HYNE3 (kept by HYNE4)']);
  });

  it('stops on a row whose name contradicts its rank', () => {
    const row = { ...table[1]!, symbol: 'TEST1', rank: 'Variety' };
    expect(() => readTaxa([row], [])).toThrow('TEST1: Variety parsed as "Hypolytrum nemorum" from "Hypolytrum nemorum (Vahl) Spreng."');
  });
});
