/**
 * The index of the pieces a worker fetches (`generated/taxa.index.json`, bundled into it): runs of
 * numbered pieces kept as one entry each must still name every piece with its type, and nothing
 * else; an index that could not be read back exactly is refused when it is written.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONTAINER, INDEX } from '../../../../../scripts/compile-data';
import { readContainer, sectionTypeOf } from '../../../../../src/services/bundled/compiled/container';
import type { CompiledMeta } from '../../../../../src/services/bundled/compiled/layout';
import { pieceIndex, pieceType, type PieceIndex } from '../../../../../src/services/bundled/compiled/piece-index';

const meta = {} as CompiledMeta;

describe('the piece index', () => {
  it('names every section of the compiled dataset with its type, and no other piece', () => {
    const container = readContainer<CompiledMeta>(new Uint8Array(readFileSync(CONTAINER)));
    const index = JSON.parse(readFileSync(INDEX, 'utf8')) as PieceIndex;
    expect(container.names.length).toBeGreaterThan(6000);
    const wrong = container.names.filter((name) => pieceType(index, name) !== sectionTypeOf(container.section(name)));
    expect(wrong).toEqual([]);
    // Runs are what keep it small: far fewer entries than pieces.
    expect(Object.keys(index.runs).length).toBeLessThan(container.names.length / 20);
    const known = new Set(container.names);
    const near = container.names.flatMap((name) => {
      const numbered = /^(.+)\.(\d+)$/.exec(name);
      return numbered
        ? [`${numbered[1]}.${Number(numbered[2]) + 1}`, `${numbered[1]}.0${numbered[2]}`, `${numbered[1]}.-1`, numbered[1]!, `${name}.0`]
        : [`${name}.0`, `${name}.1`, `${name}x`];
    });
    expect(near.filter((name) => !known.has(name) && pieceType(index, name) !== undefined)).toEqual([]);
    expect(pieceType(index, 'nothing')).toBeUndefined();
  });

  it('reads back exactly what it was given', () => {
    const pieces = [
      ['a.records.0', 'u8'],
      ['a.records.1', 'u8'],
      ['a.records.2', 'u8'],
      ['a.ranks.name', 'u32'],
      ['a.order.0', 'u32'],
      ['b.10', 'f64'],
    ] as const;
    const withB = [...pieces.slice(0, 5), ...Array.from({ length: 11 }, (_, k) => [`b.${k}`, 'f64'] as const)];
    const index = pieceIndex(meta, withB);
    expect(index.runs).toEqual({ 'a.records': ['u8', 3], 'a.ranks.name': ['u32', 0], 'a.order': ['u32', 1], b: ['f64', 11] });
    for (const [name, type] of withB) expect(pieceType(index, name)).toBe(type);
    for (const name of ['a.records.3', 'a.records', 'a.order.1', 'a.ranks.name.0', 'b.11', 'b.01', 'a.records.1.0'])
      expect(pieceType(index, name)).toBeUndefined();
  });

  it('refuses pieces it could not name back: a gap, a run of two types, a piece that is also a run', () => {
    expect(() =>
      pieceIndex(meta, [
        ['r.0', 'u8'],
        ['r.2', 'u8'],
      ]),
    ).toThrow('piece r.2 follows r.0: a run is numbered from 0 without gaps');
    expect(() => pieceIndex(meta, [['r.1', 'u8']])).toThrow('a run is numbered from 0 without gaps');
    expect(() =>
      pieceIndex(meta, [
        ['r.0', 'u8'],
        ['r.1', 'u32'],
      ]),
    ).toThrow('piece r.1 is u32 where the rest of r is u8');
    expect(() =>
      pieceIndex(meta, [
        ['r', 'u8'],
        ['r.0', 'u8'],
      ]),
    ).toThrow('piece r.0 continues r, which is a piece of its own');
    expect(() =>
      pieceIndex(meta, [
        ['r.0', 'u8'],
        ['r', 'u8'],
      ]),
    ).toThrow('piece r is also the name of a run of pieces');
    // A number with a leading zero is no number of a run: such a piece is named by itself.
    const padded = pieceIndex(meta, [
      ['r.0', 'u8'],
      ['r.00', 'u32'],
    ]);
    expect([pieceType(padded, 'r.0'), pieceType(padded, 'r.00'), pieceType(padded, 'r.1')]).toEqual(['u8', 'u32', undefined]);
  });
});
