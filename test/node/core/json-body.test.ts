/**
 * A response body is the UTF-8 of `JSON.stringify(body)` where each stored record (`RawJson`)
 * stands for the value it holds, wherever the core puts one: as a member of the top object or as
 * an element of a list there. The expected text below is written from that rule: the same body
 * with each record as a plain value, through `JSON.stringify`.
 */
import { describe, expect, it } from 'vitest';
import { RawJson, renderJson } from '../../../src/core/json-body';

const encoder = new TextEncoder();
const raw = (value: unknown) => new RawJson(encoder.encode(JSON.stringify(value)));
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

const record = { id: 'ABBA', scientific_name: 'Abies balsamea', common_name: 'sapin baumier épinette 🌲' };
const other = { id: 'ABAM', synonyms: ['x'], year: 1817 };

describe('a response body with stored records', () => {
  it.each([
    [
      'a detail',
      () => ({ data: raw(record), meta: { last_modified: '2026-03-18T00:00:00Z' } }),
      { data: record, meta: { last_modified: '2026-03-18T00:00:00Z' } },
    ],
    [
      'a page of records',
      () => ({ data: [raw(record), raw(other)], links: { self: '/v2/species?page=1' } }),
      { data: [record, other], links: { self: '/v2/species?page=1' } },
    ],
    ['a list mixing records and plain values', () => ({ data: [1, raw(other), 'é', null, raw(record)] }), { data: [1, other, 'é', null, record] }],
    ['a list whose undefined and function elements are null', () => ({ data: [raw(other), undefined, () => 1] }), { data: [other, null, null] }],
    ['undefined and function members left out', () => ({ a: undefined, data: raw(record), f: () => 1, z: 'ü' }), { data: record, z: 'ü' }],
    [
      'a record first, then text that needs more than one byte a character',
      () => ({ data: raw(other), note: '€'.repeat(50) }),
      { data: other, note: '€'.repeat(50) },
    ],
    ['a one-character member name after a record', () => ({ data: raw(other), é: 1, x: 2 }), { data: other, é: 1, x: 2 }],
    ['member names that need escapes', () => ({ 'a"b': raw(other), 'c\\d': [raw(record)] }), { 'a"b': other, 'c\\d': [record] }],
    [
      'a list without records, and records deeper down as their own JSON',
      () => ({ data: [1, 2], meta: { nested: { n: 1 } } }),
      { data: [1, 2], meta: { nested: { n: 1 } } },
    ],
    ['an empty object', () => ({}), {}],
    ['a record alone', () => raw(record), record],
    ['a list', () => [1, 'a'], [1, 'a']],
    ['null', () => null, null],
    ['a string', () => 'épinette', 'épinette'],
  ] as Array<[string, () => unknown, unknown]>)('%s renders as JSON.stringify of the same values', (_, body, plain) => {
    expect(text(renderJson(body()))).toBe(JSON.stringify(plain));
  });

  it('gives the record’s own bytes back unchanged, never re-serialized', () => {
    const bytes = encoder.encode('{"id":"ABBA",  "odd":1.50}');
    expect(text(renderJson({ data: new RawJson(bytes) }))).toBe('{"data":{"id":"ABBA",  "odd":1.50}}');
    expect(text(renderJson({ data: [new RawJson(bytes)] }))).toBe('{"data":[{"id":"ABBA",  "odd":1.50}]}');
  });

  it('renders any number of member names the same, past those it keeps quoted', () => {
    const body: Record<string, unknown> = {};
    for (let i = 0; i < 1100; i++) body[`k"${i}`] = i;
    expect(text(renderJson({ ...body, data: raw(other) }))).toBe(JSON.stringify({ ...body, data: other }));
  });

  it('reads a stored record back as its value', () => {
    expect(raw(record).parse()).toEqual(record);
  });
});
