/**
 * The compiled search index on its own (`searchPositions`, docs/reference/requests.md): the species ids it
 * gives for a `q` equal a per-field oracle over the fixture, for real and random queries, needles
 * whose covering grams repeat and needles spelling the first key of a chunk of the index; a match
 * never spans two fields. Read from the compiled dataset the Node gateway serves (`generated/`), with
 * no gateway built: what a client sees through the API is `search-text.test.ts`.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FIXTURE } from '../../../../../scripts/compile-data';
import type { Dataset } from '../../../../../src/core/records';
import type { CompiledResource } from '../../../../../src/services/bundled/compiled/resource';
import type { ResourceName } from '../../../../../src/services/record-source';
import { diskSource } from '../../../../support/gateway';
import { fold, speciesSearch } from '../../../../support/search-oracle';

const dataset: Dataset = JSON.parse(readFileSync(FIXTURE, 'utf8'));
// Read in place, as the Node entry does: only the pieces a search needs.
const source = diskSource();
const compiledSpecies = () => (source as unknown as { resources: Record<ResourceName, CompiledResource> }).resources.species;

describe('a match never spans two fields: the compiled search equals a per-field oracle', () => {
  const { folded, withTwoFields, naive, compiled } = speciesSearch(dataset, compiledSpecies);

  /** The end of one field and the start of the next of a real record, joined as a caller would guess. */
  const acrossFields = fc
    .record({ i: fc.nat(), head: fc.integer({ min: 1, max: 4 }), tail: fc.integer({ min: 1, max: 4 }), joiner: fc.constantFrom(' ', '', ', ', '  ') })
    .map(({ i, head, tail, joiner }) => {
      const [a, b] = withTwoFields[i % withTwoFields.length]!.fields;
      return `${a!.slice(-head)}${joiner}${b!.slice(0, tail)}`;
    });
  /** A piece of one real field, changed in case. */
  const insideField = fc
    .record({ i: fc.nat(), from: fc.nat(), length: fc.integer({ min: 1, max: 8 }), upper: fc.boolean() })
    .map(({ i, from, length, upper }) => {
      const fields = folded[i % folded.length]!.fields;
      const field = fields[i % fields.length]!;
      const at = from % field.length;
      const piece = field.slice(at, at + length);
      return upper ? piece.toUpperCase() : piece;
    });
  /** Short made-up text of letters seen in the data, spaces, signs and accents. */
  const madeUp = fc.string({ unit: fc.constantFrom(...'aeiourstln .-×\u00e9\u0301'), minLength: 1, maxLength: 5 });
  const query = fc.oneof(acrossFields, insideField, madeUp).filter((q) => fold(q).trim() !== '');

  // The quick cases first; the 300 random queries take most of the file's time.
  it('a needle whose covering grams repeat (the same gram at two offsets) needs it at both', async () => {
    // "anana": "ana" at offsets 0 and 2; "sasas", "inini" and "erere" likewise; "alalal" and "ississ" at 0 and 3.
    // "pinepin": "pin" at 0 and 4 with "epi" at 3 between, "olifoli" and "horthor" likewise: the
    // repeated gram is then not the only one, nor (being the commoner) the one the walk starts from.
    for (const q of ['anana', 'sasas', 'inini', 'alalal', 'erere', 'ississ', 'pinepin', 'olifoli', 'horthor']) {
      const ids = await compiled(q);
      expect(ids, q).toEqual(naive(q));
      // The repeated gram alone is found far more often than the needle.
      expect(naive(fold(q).slice(0, 3)).length, q).toBeGreaterThan(ids.length);
    }
  });

  it('a needle spelling the first key of a chunk of the search index answers as the oracle', async () => {
    // Keys: three units packed below 2^48; two units from 2^48; one unit from 2^48 + 2^32.
    const text = (key: number) =>
      key >= 0x1000100000000
        ? String.fromCharCode(key - 0x1000100000000)
        : key >= 0x1000000000000
          ? String.fromCharCode(Math.floor((key - 0x1000000000000) / 0x10000), (key - 0x1000000000000) % 0x10000)
          : String.fromCharCode(Math.floor(key / 0x100000000), Math.floor(key / 0x10000) % 0x10000, key % 0x10000);
    const fences = compiledSpecies().meta.gramFences;
    const needles = fences.filter((_, k) => k % 25 === 0 || k === fences.length - 1).map(text);
    expect(needles.length).toBeGreaterThan(20);
    for (const q of needles) {
      const ids = await compiled(q);
      expect(ids, JSON.stringify(q)).toEqual(naive(q));
      expect(ids.length, JSON.stringify(q)).toBeGreaterThan(0);
    }
  });

  it('for real and random queries (fixed seed), species ids equal the oracle', async () => {
    const queries = fc.sample(query, { numRuns: 300, seed: 20261123 });
    for (const q of queries) expect(await compiled(q), JSON.stringify(q)).toEqual(naive(q));
  });
});
