import type { Regl } from 'regl';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildLevel, CELL, FULL, LevelBuffers, refreshChunk, type Chunk, type Shape } from './cells';
import { Compactor, looseRuns } from './compaction';
import { polylineGeometry } from './geometry';

/** A regl stand-in whose buffers keep what is written into them. */
function fakeRegl(): Regl {
  const make = (float: boolean) => (o: { length: number }) => {
    const data = float ? new Float32Array(o.length / 4) : new Uint32Array(o.length / 4);
    return { subdata: (d: Float32Array | Uint32Array, offset: number) => data.set(d, offset / 4), destroy: () => {}, data };
  };
  return { buffer: make(true), elements: make(false) } as unknown as Regl;
}

/** A cell at column `k` holding `n` polylines of `pts` points each. */
function cell(k: number, n: number, pts: number): Chunk {
  const c: Chunk = { key: k, x0: k * CELL, y0: 0, shapes: new Set(), bounds: [0, 0, 0, 0], minExtent: Infinity, levels: new Map(), dirty: true, gen: 0 };
  for (let i = 0; i < n; i++) addLine(c, i, pts);
  refreshChunk(c);
  return c;
}

function addLine(c: Chunk, i: number, pts: number): void {
  const coords = Array.from({ length: pts * 2 }, (_, j) => (j % 2 ? 10 + i * 20 + (j % 4) : c.x0 + 10 + j * 5));
  const s: Shape = { id: `${c.key}/${i}`, z: i, type: 2, color: 0, slot: i, geom: polylineGeometry(coords, pts, 0, i), rings: null, mask: null, bounds: [c.x0 + 10, 10 + i * 20, c.x0 + 10 + pts * 10, 12 + i * 20], chunk: c, label: '' };
  for (const old of c.shapes) if (old.id === s.id) c.shapes.delete(old);
  c.shapes.add(s);
}

/** A Map that counts walks over its values (the compactor reads the cells only to look at a level's layout). */
class WalkedMap<K, V> extends Map<K, V> {
  walks = 0;
  override values(): MapIterator<V> {
    this.walks++;
    return super.values();
  }
}

/** Cell `c` grown (an edit) and its level built again: its ranges move to the end, leaving a hole. */
function grow(storeOf: (level: number) => LevelBuffers, c: Chunk): void {
  addLine(c, 0, 12);
  refreshChunk(c);
  buildLevel(storeOf, c, FULL, 1);
}

/** `n` cells of `lines` polylines at FULL, then the cells `grown` picks grown (default every other one). */
function looseLevel(n: number, lines: number, grown = (k: number) => k % 2 === 0) {
  const regl = fakeRegl();
  const stores = new Map<number, LevelBuffers>();
  const storeOf = (level: number) => {
    let st = stores.get(level);
    if (!st) stores.set(level, (st = new LevelBuffers(regl)));
    return st;
  };
  const chunks = new WalkedMap<number, Chunk>();
  for (let k = 0; k < n; k++) chunks.set(k, cell(k, lines, 3));
  for (const c of chunks.values()) buildLevel(storeOf, c, FULL, 0);
  for (const c of chunks.values()) if (grown(c.key)) grow(storeOf, c);
  return { regl, stores, storeOf, chunks };
}

afterEach(() => vi.useRealTimers());

describe('compaction of a level', () => {
  it('lays cells built apart out in one run per pass, in key order, once quiet, and frees the old buffers', async () => {
    vi.useFakeTimers();
    const { regl, stores, chunks } = looseLevel(16, 3);
    const levels = () => [...chunks.values()].map((c) => c.levels.get(FULL)!);
    expect(looseRuns(levels())).toBeGreaterThan(4);
    const oldStore = stores.get(FULL)!;
    const done = vi.fn();
    const compactor = new Compactor({ chunks, stores, newStore: () => new LevelBuffers(regl), enabled: () => true, building: () => false, done });
    compactor.poke();
    expect(compactor.pending).toBe(true);
    await vi.runAllTimersAsync();
    expect(compactor.count).toBe(1);
    expect(compactor.pending).toBe(false);
    expect(done).toHaveBeenCalledTimes(1);
    expect(looseRuns(levels())).toBe(0);
    expect(stores.get(FULL)).not.toBe(oldStore);
    expect(oldStore.fillV.pages.length + oldStore.lineI.pages.length).toBe(0);
    // key order: each cell's outline indices start where the previous cell's end
    const ls = levels();
    for (let k = 1; k < ls.length; k++) expect(ls[k]!.lineI!.start).toBe(ls[k - 1]!.lineI!.start + ls[k - 1]!.lineI!.cap);
    // laid out: nothing more to do
    compactor.poke();
    expect(compactor.pending).toBe(false);
  });

  it('gives up when a cell changes while it runs, and keeps the cells on their ranges', async () => {
    vi.useFakeTimers();
    const { regl, stores, chunks } = looseLevel(8, 2);
    const before = [...chunks.values()].map((c) => c.levels.get(FULL));
    const compactor = new Compactor({ chunks, stores, newStore: () => new LevelBuffers(regl), enabled: () => true, building: () => false, done: () => {} });
    compactor.poke();
    await vi.advanceTimersByTimeAsync(300);
    // the job is under way (or done within one slice); a change to a cell makes it give up
    chunks.get(3)!.dirty = true;
    await vi.runAllTimersAsync();
    if (compactor.count === 0) expect([...chunks.values()].map((c) => c.levels.get(FULL))).toEqual(before);
    const off = new Compactor({ chunks, stores, newStore: () => new LevelBuffers(regl), enabled: () => false, building: () => false, done: () => {} });
    off.poke();
    expect(off.pending).toBe(false);
  });

  it('only re-arms its timer on a change, looks at the layout once quiet, and not again until a range moves', async () => {
    vi.useFakeTimers();
    // one cell grown: its level moved a range but falls into two runs a pass, tight enough
    const { regl, stores, storeOf, chunks } = looseLevel(16, 3, (k) => k === 5);
    const done = vi.fn();
    const compactor = new Compactor({ chunks, stores, newStore: () => new LevelBuffers(regl), enabled: () => true, building: () => false, done });
    chunks.walks = 0;
    for (let i = 0; i < 100; i++) compactor.poke(); // a scene loading in parts, a zoom's frames
    expect(chunks.walks).toBe(0);
    expect(compactor.pending).toBe(true);
    await vi.runAllTimersAsync();
    expect(chunks.walks).toBeGreaterThan(0);
    expect(done).toHaveBeenCalledWith(null);
    expect(compactor.count).toBe(0);
    expect(compactor.pending).toBe(false);
    compactor.poke();
    expect(compactor.pending).toBe(false); // looked at, nothing moved since
    // more edits move ranges: looked at again, and now loose enough to lay out
    for (const k of [0, 2, 8, 10, 12, 14]) grow(storeOf, chunks.get(k)!);
    compactor.poke();
    expect(compactor.pending).toBe(true);
    await vi.runAllTimersAsync();
    expect(compactor.count).toBe(1);
    expect(looseRuns([...chunks.values()].map((c) => c.levels.get(FULL)!))).toBe(0);
  });

  it('lays out every loose level, one after another, not only the loosest', async () => {
    vi.useFakeTimers();
    const { regl, stores, storeOf, chunks } = looseLevel(16, 3);
    // 16 more cells, drawn at another level (zoomed out), their ranges moved apart by fewer edits: less loose
    const OTHER = 2;
    const others = Array.from({ length: 16 }, (_, k) => cell(16 + k, 3, 3));
    for (const c of others) {
      chunks.set(c.key, c);
      buildLevel(storeOf, c, OTHER, 0);
    }
    for (const c of others.filter((o) => o.key % 3 === 0)) {
      addLine(c, 0, 12);
      refreshChunk(c);
      buildLevel(storeOf, c, OTHER, 1);
    }
    const runsAt = (level: number) => looseRuns([...chunks.values()].flatMap((c) => c.levels.get(level) ?? []));
    expect(runsAt(FULL)).toBeGreaterThan(runsAt(OTHER));
    expect(runsAt(OTHER)).toBeGreaterThan(4);
    const compactor = new Compactor({ chunks, stores, newStore: () => new LevelBuffers(regl), enabled: () => true, building: () => false, done: () => {} });
    compactor.poke();
    await vi.runAllTimersAsync();
    expect(compactor.count).toBe(2);
    expect([runsAt(FULL), runsAt(OTHER)]).toEqual([0, 0]);
  });
});
