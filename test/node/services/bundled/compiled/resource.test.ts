/**
 * The compiled dataset's reader on its own, without a gateway: the container (what it refuses,
 * sections viewed in place or copied when misaligned), the stores (a piece fetched once however
 * many ask for it, and again after a failed fetch), and a resource over the dataset on disk
 * (`generated/`, as `src/node.ts` reads it): its orders and their windows across order chunks,
 * positions by id, child lists, records, and what each of them reads.
 */
import { describe, expect, it } from 'vitest';
import { fileStore } from '../../../../../src/node';
import { readContainer, readHeader, writeContainer } from '../../../../../src/services/bundled/compiled/container';
import { type CompiledMeta, gramKey, NULL_RANK, ORDER_CHUNK, RECORD_CHUNK, shortKey } from '../../../../../src/services/bundled/compiled/layout';
import { pieceIndex } from '../../../../../src/services/bundled/compiled/piece-index';
import { CompiledResource } from '../../../../../src/services/bundled/compiled/resource';
import { pieceName, pieceStore, type SectionStore, viewAs } from '../../../../../src/services/bundled/compiled/store';

const decoder = new TextDecoder();

/** A small container of three typed sections. */
function sample(): Uint8Array {
  return writeContainer(
    { note: 'sample' },
    {
      bytes: Uint8Array.from([1, 2, 3]),
      words: Uint32Array.from([7, 0xffffffff, 42]),
      reals: Float64Array.from([0.5, -1.25]),
    },
  );
}

/** `bytes` copied to `at` bytes into a buffer of its own, as a read into a larger buffer leaves them. */
function placed(bytes: Uint8Array, at: number): Uint8Array {
  const buffer = new Uint8Array(at + bytes.byteLength);
  buffer.set(bytes, at);
  return buffer.subarray(at);
}

describe('the container', () => {
  it('refuses what is not a compiled dataset, or is cut short, saying which', () => {
    const whole = sample();
    expect(() => readContainer(whole.subarray(0, 4))).toThrow('not a compiled dataset');
    const wrongMagic = whole.slice();
    wrongMagic[0] = 0x58;
    expect(() => readContainer(wrongMagic)).toThrow('not a compiled dataset');
    expect(() => readContainer(whole.subarray(0, 12))).toThrow('compiled dataset header is cut short');
    // Read through a file that ends inside the header.
    expect(() => readHeader((from, to) => whole.slice(from, Math.min(to, 20)))).toThrow('compiled dataset header is cut short');
    expect(() => readContainer(whole).section('missing')).toThrow('compiled dataset has no section missing');
  });

  it('views aligned sections in place, each once, and copies misaligned bytes to read them', () => {
    const aligned = placed(sample(), 8);
    const container = readContainer<{ note: string }>(aligned);
    expect(container.meta).toEqual({ note: 'sample' });
    expect(container.names).toEqual(['bytes', 'words', 'reals']);
    const words = container.section('words');
    expect(words.buffer).toBe(aligned.buffer);
    expect(container.section('words')).toBe(words);
    for (const at of [1, 3, 4]) {
      const misaligned = readContainer(placed(sample(), at));
      expect([...misaligned.section('words')], `at ${at}`).toEqual([7, 0xffffffff, 42]);
      expect([...misaligned.section('reals')], `at ${at}`).toEqual([0.5, -1.25]);
      expect([...misaligned.section('bytes')], `at ${at}`).toEqual([1, 2, 3]);
    }
  });

  it('reads a header in one read when the guess covers it, in two when it does not', () => {
    const whole = sample();
    const reads: Array<[number, number]> = [];
    const read = (from: number, to: number) => {
      reads.push([from, to]);
      return whole.slice(from, to);
    };
    const once = readHeader(read, 1024);
    expect(reads).toEqual([[0, 1024]]);
    reads.length = 0;
    const twice = readHeader(read, 16);
    expect(reads.length).toBe(2);
    expect(reads[0]).toEqual([0, 16]);
    expect(twice.header).toEqual(once.header);
    expect(twice.start).toBe(once.start);
  });
});

describe('the stores', () => {
  it('views a piece in place when aligned, and copies it when not', () => {
    const words = Uint32Array.from([1, 2, 0xfffffffe]);
    const bytes = new Uint8Array(words.buffer);
    const aligned = placed(bytes, 8);
    const view = viewAs('u32', aligned);
    expect(view.buffer).toBe(aligned.buffer);
    expect([...view]).toEqual([1, 2, 0xfffffffe]);
    for (const at of [1, 2, 4]) expect([...viewAs('u32', placed(bytes, at))], `at ${at}`).toEqual([1, 2, 0xfffffffe]);
  });

  it('fetches a piece once however many ask while it loads, again after a failed fetch, and never for a section it does not know', async () => {
    const meta = { format: 0, inputs: '', last_modified: '', resources: {} } satisfies CompiledMeta;
    const index = pieceIndex(meta, [
      ['things.order.0', 'u32'],
      ['things.order.1', 'u32'],
    ]);
    const fetched: string[] = [];
    let failNext = true;
    const store = pieceStore(index, async (name) => {
      fetched.push(name);
      if (failNext) {
        failNext = false;
        throw new Error('the network went away');
      }
      return Uint32Array.from([5, 6]).buffer;
    });
    await expect(store.load('things.order.0')).rejects.toThrow('the network went away');
    const [a, b] = await Promise.all([store.load('things.order.0'), store.load('things.order.0')]);
    expect([...a]).toEqual([5, 6]);
    expect(b).toBe(a);
    expect(fetched).toEqual([pieceName('things.order.0'), pieceName('things.order.0')]);
    expect(() => store.load('things.order.2')).toThrow('compiled dataset has no section things.order.2');
    expect(fetched.length).toBe(2);
  });

  it('reads the sections of a container it carries without a fetch', async () => {
    const meta = { format: 0, inputs: '', last_modified: '', resources: {} } satisfies CompiledMeta;
    const carried = writeContainer(null, { 'things.ranks.name': Uint32Array.from([3, 1, 2]) });
    const store = pieceStore(pieceIndex(meta, []), () => Promise.reject(new Error('no fetch expected')), carried);
    expect([...(await store.load('things.ranks.name'))]).toEqual([3, 1, 2]);
  });
});

describe('search keys', () => {
  it('keys of one unit, two units and three never meet', () => {
    const texts = ['a', 'b', 'ab', 'ba', 'aa', 'bb', 'aab', 'aba', 'baa'];
    const keys = texts.map((t) => (t.length < 3 ? shortKey(t, 0, t.length) : gramKey(t, 0)));
    expect(new Set(keys).size).toBe(texts.length);
    // The short keys above every gram's, the one-unit keys above every two-unit key.
    const gramMax = gramKey('\uffff\uffff\uffff', 0);
    expect(shortKey('\0\0', 0, 2)).toBeGreaterThan(gramMax);
    expect(shortKey('\0', 0, 1)).toBeGreaterThan(shortKey('\uffff\uffff', 0, 2));
  });
});

let disk: SectionStore | undefined;
/** The dataset on disk, opened once for the file (a store keeps nothing but the header it read). */
const onDisk = (): SectionStore => (disk ??= fileStore());

/** A fresh resource over the dataset on disk. */
function resource(name: string, store: SectionStore = onDisk()): CompiledResource {
  return new CompiledResource(store, name, store.meta.resources[name]!);
}

/** A fresh resource over the dataset on disk, with the sections it loads and the pieces it reads in part. */
function counted(name: string) {
  const inner = onDisk();
  const loads: string[] = [];
  const ranges: string[] = [];
  const store: SectionStore = {
    meta: inner.meta,
    load(section) {
      loads.push(section);
      return inner.load(section);
    },
    range(section, from, to) {
      ranges.push(section);
      return inner.range!(section, from, to);
    },
  };
  return { resource: resource(name, store), loads, ranges };
}

const json = (bytes: Uint8Array) => JSON.parse(decoder.decode(bytes)) as Record<string, unknown>;

describe('a resource of the dataset on disk: orders', () => {
  it('orders every record by a field, nulls last either way and ties by id, kept once read', async () => {
    const species = resource('species');
    for (const field of ['scientific_name', 'year']) {
      const ranks = (await species.ranks(field))!;
      for (const direction of ['asc', 'desc'] as const) {
        const order = await species.order(field, direction);
        expect(order.length).toBe(species.count);
        expect(new Set(order).size, `${field} ${direction}: every position once`).toBe(species.count);
        for (let i = 1; i < order.length; i++) {
          const [a, b] = [order[i - 1]!, order[i]!];
          const [ra, rb] = [ranks[a]!, ranks[b]!];
          const inOrder = ra === rb ? a < b : ra === NULL_RANK ? false : rb === NULL_RANK ? true : direction === 'asc' ? ra < rb : ra > rb;
          if (!inOrder) expect.fail(`${field} ${direction}: positions ${a} and ${b} out of order at ${i}`);
        }
        expect(await species.order(field, direction)).toBe(order);
      }
    }
    // Two orders of one resource asked in turn are each their own.
    expect(await species.order('scientific_name', 'asc')).not.toEqual(await species.order('year', 'desc'));
  });

  it('reads a window of an order from its chunks alone, across a chunk boundary and at the end', async () => {
    const { resource: species, loads } = counted('species');
    const windows: Array<[offset: number, limit: number]> = [
      [0, 20],
      [ORDER_CHUNK - 10, 20],
      [ORDER_CHUNK, 20],
      [2 * ORDER_CHUNK - 1, ORDER_CHUNK + 2],
      [species.count - 5, 20],
      [species.count, 20],
      [species.count + 40, 20],
    ];
    const whole = await resource('species').order('common_name', 'desc');
    for (const [offset, limit] of windows) {
      loads.length = 0;
      const window = await species.orderWindow('common_name', 'desc', offset, limit);
      expect([...window], `${offset}+${limit}`).toEqual([...whole.subarray(offset, offset + limit)]);
    }
    // Each order chunk is read once, however many windows touch it.
    loads.length = 0;
    await species.orderWindow('common_name', 'desc', ORDER_CHUNK - 10, 20);
    expect(loads).toEqual([]);
    const fresh = counted('species');
    await fresh.resource.orderWindow('common_name', 'desc', ORDER_CHUNK - 10, 20);
    expect(fresh.loads).toEqual(['species.order.common_name.desc.0', 'species.order.common_name.desc.1']);
    // A window that ends where a chunk ends reads that chunk only.
    const atBoundary = counted('species');
    await atBoundary.resource.orderWindow('common_name', 'desc', ORDER_CHUNK - 20, 20);
    expect(atBoundary.loads).toEqual(['species.order.common_name.desc.0']);
  });

  it('orders by id without reading anything: positions up or down', async () => {
    const { resource: genus, loads } = counted('genus');
    expect([...(await genus.orderWindow('id', 'asc', 10, 3))]).toEqual([10, 11, 12]);
    expect([...(await genus.orderWindow('id', 'desc', 10, 3))]).toEqual([genus.count - 11, genus.count - 12, genus.count - 13]);
    expect([...(await genus.orderWindow('id', 'desc', genus.count - 2, 5))]).toEqual([1, 0]);
    const all = await genus.order('id', 'desc');
    expect(all.length).toBe(genus.count);
    expect([all[0], all[genus.count - 1]]).toEqual([genus.count - 1, 0]);
    expect(loads).toEqual([]);
  });

  it('loads a field’s ranks once', async () => {
    const { resource: genus, loads } = counted('genus');
    const ranks = await genus.ranks('name');
    expect(await genus.ranks('name')).toBe(ranks);
    expect(loads).toEqual(['genus.ranks.name']);
    expect(await genus.ranks('id')).toBeUndefined();
  });
});

describe('a resource of the dataset on disk: ids, children and records', () => {
  it('finds each record by its id, and no record for an id it does not have', async () => {
    const genus = resource('genus');
    const ids = (await genus.records(await genus.order('id', 'asc'))).map((bytes) => json(bytes).id as string);
    // Every record, so each chunk's first and last id and every binary-search path are met.
    for (let at = 0; at < ids.length; at++) {
      const found = await genus.position(ids[at]!);
      if (found !== at) expect.fail(`${ids[at]} found at ${found}, not ${at}`);
    }
    // Before the first id, after the last, and between two.
    for (const missing of ['', '!', '\uffff', `${ids[3]}\u0000`, `${ids[ids.length - 1]}x`]) {
      if (ids.includes(missing)) continue;
      expect(await genus.position(missing), JSON.stringify(missing)).toBeUndefined();
    }
  });

  it('lists the children of each parent: exactly the records naming it, in position order', async () => {
    const species = resource('species');
    const genus = resource('genus');
    const genera = (await genus.records(await genus.order('id', 'asc'))).map((bytes) => json(bytes).id as string);
    const byGenus = new Map<string, number[]>();
    const all = await species.records(await species.order('id', 'asc'));
    all.forEach((bytes, at) => {
      const id = json(bytes).genus_id as string;
      byGenus.set(id, [...(byGenus.get(id) ?? []), at]);
    });
    for (let at = 0; at < genera.length; at++) {
      const children = [...(await species.children('genus', at))];
      if (JSON.stringify(children) !== JSON.stringify(byGenus.get(genera[at]!) ?? [])) {
        expect.fail(`genus ${genera[at]} at ${at}: ${children.length} children, not ${byGenus.get(genera[at]!)?.length ?? 0}`);
      }
    }
  });

  it('reads the records of any positions, in their order, each as the record alone gives it', async () => {
    const plants = resource('plants');
    const c = RECORD_CHUNK;
    const positions = [c - 2, c - 1, c, c + 1, 3 * c - 1, 5, 5, 4, 3, plants.count - 1, 0, 2 * c, 2 * c + 1];
    const records = await plants.records(positions);
    expect(records.length).toBe(positions.length);
    for (const [i, at] of positions.entries()) expect(decoder.decode(records[i]), `${i}: position ${at}`).toBe(decoder.decode((await plants.record(at)).bytes));
  });

  it('reads a record chunk’s head once and its records’ JSON when asked, from a file', async () => {
    const { resource: plants, ranges } = counted('plants');
    await plants.record(3 * RECORD_CHUNK + 1);
    expect(ranges).toEqual(['plants.records.3', 'plants.records.3']);
    await plants.record(3 * RECORD_CHUNK + 2);
    expect(ranges.length).toBe(3);
  });

  it('opens a chunk piece once while it is kept', async () => {
    const { resource: species, loads } = counted('species');
    const part = await species.part('species.grams.0');
    expect(await species.part('species.grams.0')).toBe(part);
    expect(loads).toEqual(['species.grams.0']);
  });
});
