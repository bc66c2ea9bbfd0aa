import type { Regl } from 'regl';
import { describe, expect, it } from 'vitest';
import { Pool, RunList } from './level-buffers';

/** A regl stand-in whose buffers keep what is written into them (as floats or uint32s). */
function fakeRegl() {
  const made: { data: Float32Array | Uint32Array; destroyed: boolean }[] = [];
  const make = (float: boolean) => (o: { length: number }) => {
    const b = { data: float ? new Float32Array(o.length / 4) : new Uint32Array(o.length / 4), destroyed: false };
    made.push(b);
    return {
      subdata: (d: Float32Array | Uint32Array, offset: number) => b.data.set(d, offset / 4),
      destroy: () => { b.destroyed = true; },
      b,
    };
  };
  return { regl: { buffer: make(true), elements: make(false) } as unknown as Regl, made };
}

describe('shared level buffers', () => {
  it('hands out ranges one after another, reuses a freed one that fits, and blanks what a rewrite leaves over', () => {
    const { regl, made } = fakeRegl();
    const dots = new Pool(regl, 2, [-9, -9]);
    const a = dots.alloc(3), b = dots.alloc(2);
    expect([a.start, b.start]).toEqual([0, 3]);
    expect(a.page).toBe(b.page);
    a.page.write(a, new Float32Array([1, 1, 2, 2, 3, 3]));
    // the same range rewritten with one element less: its last element blank
    a.page.write(a, new Float32Array([4, 4, 5, 5]));
    expect(Array.from(made[0]!.data.slice(0, 6))).toEqual([4, 4, 5, 5, -9, -9]);
    expect(dots.refit(a, 3)).toBe(a); // fits: kept in place
    const c = dots.refit(a, 4); // does not: moved to the end, a's place free for the next that fits
    expect(c.start).toBe(5);
    expect(dots.alloc(2).start).toBe(0);
  });

  it('a batch reserved together lies in one page even past the first page, and an emptied page is destroyed', () => {
    const { regl, made } = fakeRegl();
    const idx = new Pool(regl, 0);
    idx.alloc(4000);
    idx.reserve(3 * 3000);
    const batch = [idx.alloc(3000), idx.alloc(3000), idx.alloc(3000)];
    expect(new Set(batch.map((r) => r.page)).size).toBe(1);
    expect(batch.map((r) => r.start)).toEqual([0, 3000, 6000]);
    for (const r of batch) idx.release(r);
    expect(made[1]!.destroyed).toBe(true);
    expect(idx.pages).toHaveLength(1);
  });

  it('joins draws of ranges that touch into one, keeping the order of their first cells', () => {
    const { regl } = fakeRegl();
    const pool = new Pool(regl, 2);
    const r = [pool.alloc(5), pool.alloc(5), pool.alloc(5), pool.alloc(5)];
    const other = new Pool(regl, 2).alloc(5);
    const list = new RunList();
    // cells in the order 3, 0, other, 1 (2 is out of view): 0-1 touch, 3 does not touch them
    for (const x of [r[3]!, r[0]!, other, r[1]!]) list.add(x.page, x.page, x.start, x.cap);
    const runs = list.joined();
    expect(runs.map((x) => [x.offset, x.count])).toEqual([[15, 5], [0, 10], [0, 5]]);
    expect(runs[2]!.page).toBe(other.page);
    // the next frame reuses the same objects
    list.clear();
    list.add(r[0]!.page, r[0]!.page, 0, 20);
    expect(list.joined()[0]).toBe(runs[0]);
  });
});
