/**
 * The comparison of a facade answer with a legacy one (docs/reference/migration.md), on bodies written
 * out here: what counts as a difference (status, values, object keys either side, array length
 * and order), what does not (object key order), where each is reported (`data[].rank`, first at
 * `data[3].rank`), and what `V1_COMPARE_IGNORE` paths leave out.
 */
import { describe, expect, it } from 'vitest';
import { differences, type Side } from '../../../src/migration/compare';

const ok = (body: unknown): Side => ({ status: 200, body });
const brief = (facade: Side, legacy: Side, ignore: string[] = []) => differences(facade, legacy, ignore).map((d) => [d.path, d.at, d.kind, d.facade, d.legacy]);

describe('differences between the facade and the legacy answer', () => {
  it('none for equal answers, whatever the order of object keys', () => {
    expect(brief(ok({ a: 1, b: { c: [1, 2], d: null } }), ok({ b: { d: null, c: [1, 2] }, a: 1 }))).toEqual([]);
    expect(brief({ status: 404, body: null }, { status: 404, body: null })).toEqual([]);
    expect(brief(ok({ data: [{ id: 'A', n: 1 }, { id: 'B' }] }), ok({ data: [{ n: 1, id: 'A' }, { id: 'B' }] }))).toEqual([]);
  });

  it('the status, and values of another type or another value, at their path', () => {
    expect(brief({ status: 200, body: { a: 1 } }, { status: 404, body: { a: 1 } })).toEqual([['(status)', '(status)', 'value', 200, 404]]);
    expect(brief(ok({ a: 1, b: 'x' }), ok({ a: '1', b: 'y' }))).toEqual([
      ['a', 'a', 'value', 1, '1'],
      ['b', 'b', 'value', 'x', 'y'],
    ]);
    expect(brief(ok('text'), ok('other'))).toEqual([['(body)', '(body)', 'value', 'text', 'other']]);
  });

  it('a key on one side only, either side, and null against absent', () => {
    expect(brief(ok({ a: 1 }), ok({ a: 1, extra: true }))).toEqual([['extra', 'extra', 'value', undefined, true]]);
    expect(brief(ok({ a: 1, gone: 2 }), ok({ a: 1 }))).toEqual([['gone', 'gone', 'value', 2, undefined]]);
    expect(brief(ok({ a: null }), ok({}))).toEqual([['a', 'a', 'value', null, undefined]]);
  });

  it('an object against an array or a value, as one difference at that path', () => {
    expect(brief(ok({ a: { b: 1 } }), ok({ a: [1] }))).toEqual([['a', 'a', 'value', { b: 1 }, [1]]]);
    expect(brief(ok({ a: [1] }), ok({ a: 1 }))).toEqual([['a', 'a', 'value', [1], 1]]);
  });

  it('arrays: a different length, and elements compared in order, positions collapsed in the path', () => {
    expect(brief(ok({ list: [1, 2, 3] }), ok({ list: [1, 2] }))).toEqual([['list', 'list', 'length', 3, 2]]);
    expect(brief(ok({ list: [1, 2, 3] }), ok({ list: [1, 3, 2] }))).toEqual([
      ['list[]', 'list[1]', 'value', 2, 3],
      ['list[]', 'list[2]', 'value', 3, 2],
    ]);
    expect(brief(ok({ rows: [{ v: [{ w: 1 }] }] }), ok({ rows: [{ v: [{ w: 2 }] }] }))).toEqual([['rows[].v[].w', 'rows[0].v[0].w', 'value', 1, 2]]);
  });

  it('lists of records matched by id: another order is one `order` difference; other records one `records` difference', () => {
    const a = { id: 'A', rank: 'SPECIES' };
    const b = { id: 'B', rank: 'GENUS' };
    const c = { id: 'C', rank: 'SPECIES' };
    expect(brief(ok({ data: [a, b] }), ok({ data: [b, a] }))).toEqual([['data', 'data', 'order', ['A', 'B'], ['B', 'A']]]);
    expect(brief(ok({ data: [a, b] }), ok({ data: [a, c] }))).toEqual([['data[].id', 'data[].id', 'records', ['A', 'B'], ['A', 'C']]]);
    expect(brief(ok({ data: [a, b] }), ok({ data: [a] }))).toEqual([['data[].id', 'data[].id', 'records', ['A', 'B'], ['A']]]);
    // Records in another order are still compared with their own counterpart, by id.
    expect(brief(ok({ data: [a, b] }), ok({ data: [{ ...b, rank: 'genus' }, a] }))).toEqual([
      ['data', 'data', 'order', ['A', 'B'], ['B', 'A']],
      ['data[].rank', 'data[1].rank', 'value', 'GENUS', 'genus'],
    ]);
    // Ids that are not all strings: compared position by position.
    expect(brief(ok({ data: [{ id: 1 }, { id: 2 }] }), ok({ data: [{ id: 2 }, { id: 1 }] }))).toEqual([
      ['data[].id', 'data[0].id', 'value', 1, 2],
      ['data[].id', 'data[1].id', 'value', 2, 1],
    ]);
  });

  it('lists of records: ids told apart whole, in any order on either side, and a list not all records compared by position', () => {
    const rec = (id: string) => ({ id });
    // Joined without a separator these would read the same.
    expect(brief(ok({ data: [rec('AB'), rec('C')] }), ok({ data: [rec('A'), rec('BC')] }))).toEqual([
      ['data[].id', 'data[].id', 'records', ['AB', 'C'], ['A', 'BC']],
    ]);
    expect(brief(ok({ data: [rec('B'), rec('A')] }), ok({ data: [rec('A'), rec('B')] }))).toEqual([['data', 'data', 'order', ['B', 'A'], ['A', 'B']]]);
    expect(brief(ok({ data: [rec('A'), { x: 1 }] }), ok({ data: [{ x: 1 }, rec('A')] }))).toEqual([
      ['data[].id', 'data[0].id', 'value', 'A', undefined],
      ['data[].x', 'data[0].x', 'value', undefined, 1],
      ['data[].x', 'data[1].x', 'value', 1, undefined],
      ['data[].id', 'data[1].id', 'value', undefined, 'A'],
    ]);
  });

  it('without ignored paths, leaves nothing out', () => {
    expect(differences(ok({ a: 1 }), ok({ a: 2 })).map((d) => d.path)).toEqual(['a']);
  });

  it('ignored paths leave out the path and what is below it, in objects and arrays, and nothing else', () => {
    const facade = ok({ meta: { total: 1, last_modified: 'x' }, data: [{ id: 'A', rank: 'SPECIES', ranks: 1 }], rank: 1 });
    const legacy = ok({ meta: { total: 2, last_modified: 'y' }, data: [{ id: 'A', rank: 'species', ranks: 2 }], rank: 2 });
    expect(brief(facade, legacy, ['meta']).map((d) => d[0])).toEqual(['data[].rank', 'data[].ranks', 'rank']);
    expect(brief(facade, legacy, ['meta.total', 'data[].rank']).map((d) => d[0])).toEqual(['meta.last_modified', 'data[].ranks', 'rank']);
    expect(brief(facade, legacy, ['data']).map((d) => d[0])).toEqual(['meta.total', 'meta.last_modified', 'rank']);
    expect(brief(facade, legacy, ['ran', 'data[].ran', 'met']).map((d) => d[0])).toEqual([
      'meta.total',
      'meta.last_modified',
      'data[].rank',
      'data[].ranks',
      'rank',
    ]);
    expect(brief({ status: 200, body: 1 }, { status: 500, body: 2 }, ['(status)']).map((d) => d[0])).toEqual(['(body)']);
    expect(brief(ok({ data: [{ id: 'A' }] }), ok({ data: [{ id: 'B' }] }), ['data[].id'])).toEqual([]);
    // Every element ignored: other records in the list are below it.
    expect(brief(ok({ data: [{ id: 'A' }], n: 1 }), ok({ data: [{ id: 'B' }], n: 2 }), ['data[]']).map((d) => d[0])).toEqual(['n']);
  });
});
