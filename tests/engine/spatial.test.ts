import { describe, expect, it } from 'vitest';
import { docFromAnnotations, type DocState } from '../../src/engine/model/document';
import { SpatialIndex } from '../../src/engine/spatial';
import type { EditorAnnotation } from '../../src/engine';
import { box } from './helpers';

function grid(n: number, shift = new Map<string, number>()): EditorAnnotation[] {
  return Array.from({ length: n }, (_, i) => box(`b${i}`, (i % 100) * 20 + (shift.get(`b${i}`) ?? 0), Math.floor(i / 100) * 20, 10, 10));
}

describe('two-level spatial index', () => {
  it('keeps edits in the dynamic list instead of rebuilding the tree', () => {
    let doc: DocState = docFromAnnotations(grid(10_000));
    const index = new SpatialIndex(() => doc);
    expect(index.search(0, 0, 5, 5)).toEqual(['b0']);
    // Move b0 far away: the stale tree entry must be ignored, the new bounds found.
    doc = docFromAnnotations(grid(10_000, new Map([['b0', 5000]])));
    index.update({ all: false, ids: new Set(['b0']) });
    expect(index.dynamicSize).toBe(1);
    expect(index.search(0, 0, 5, 5)).toEqual([]);
    expect(index.search(5000, 0, 5005, 5)).toEqual(['b0']);
    // A deleted id disappears from both levels.
    doc = docFromAnnotations(grid(10_000).filter((a) => a.id !== 'b1'));
    index.update({ all: false, ids: new Set(['b0', 'b1']) });
    expect(index.search(20, 0, 25, 5)).toEqual([]);
    expect(index.search(0, 0, 5, 5)).toEqual(['b0']); // b0 is back in place in this doc
  });

  it('rebuilds lazily once many ids changed, with the same answers', () => {
    const shift = new Map<string, number>();
    for (let i = 0; i < 3000; i++) shift.set(`b${i}`, 3);
    let doc: DocState = docFromAnnotations(grid(10_000));
    const index = new SpatialIndex(() => doc);
    index.search(0, 0, 1, 1);
    doc = docFromAnnotations(grid(10_000, shift));
    index.update({ all: false, ids: new Set(shift.keys()) });
    expect(index.dynamicSize).toBe(0); // over the threshold: marked for rebuild
    expect(index.search(0, 0, 2, 2)).toEqual([]);
    expect(index.search(3, 0, 4, 1)).toEqual(['b0']);
    expect(index.dynamicSize).toBe(0);
  });

  it('builds the tree in slices ahead of the first query, keeping edits made meanwhile', () => {
    let doc: DocState = docFromAnnotations(grid(10_000));
    const index = new SpatialIndex(() => doc);
    let calls = 0;
    while (!index.prepare(0)) {
      calls++;
      if (calls === 1) {
        // an edit while the bounds are being read
        doc = docFromAnnotations(grid(10_000, new Map([['b0', 5000]])));
        index.update({ all: false, ids: new Set(['b0']) });
      }
    }
    expect(calls).toBeGreaterThan(1);
    expect(index.ready).toBe(true);
    expect(index.search(0, 0, 5, 5)).toEqual([]);
    expect(index.search(5000, 0, 5005, 5)).toEqual(['b0']);
    expect(index.search(20, 0, 25, 5)).toEqual(['b1']);
  });
});
