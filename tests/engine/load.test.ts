import { describe, expect, it } from 'vitest';
import { Editor, editorToStored, nextTask, SceneTracker } from '../../src/engine';
import { box } from './helpers';

const shapes = (n: number, prefix = 'b') => Array.from({ length: n }, (_, i) => box(`${prefix}${i}`, (i % 100) * 20, Math.floor(i / 100) * 20, 10, 10));

describe('loadAsync', () => {
  it('loads the same document as load(), in several tasks, with history cleared', async () => {
    const a = new Editor();
    a.load(shapes(5000));
    const b = new Editor();
    b.execute('create', { annotation: box('old', 0, 0, 20, 20) });
    let changes = 0;
    b.subscribe((c) => { if (c.document?.all) changes++; });
    let finished = false;
    const loading = b.loadAsync(shapes(5000), 0).then(() => (finished = true));
    // A task later the load is still going and the document has not changed: it runs in several
    // tasks. (A setTimeout(0) here raced the load: Node delivers up to 1,000 port messages, the
    // load's slices, in one turn, so the timer fired only when the first slice took over 1 ms.)
    await nextTask();
    expect([finished, changes]).toEqual([false, 0]);
    await loading;
    expect(changes).toBe(1); // the document changed once, at the end
    expect(b.getDocument()).toEqual(a.getDocument());
    expect(b.getOrderedIds()).toEqual(a.getOrderedIds());
    expect(b.getZ('b4999')).toBe(4999);
    expect(b.canUndo()).toBe(false);
    expect(b.hitTest(25, 25)).toBe('b101');
    // paint order keeps working for edits after the load
    b.execute('delete', { ids: ['b0'] });
    b.undo();
    expect(b.getOrderedIds()[0]).toBe('b0');
    expect(new SceneTracker(b).pull().upserts).toHaveLength(5000);
  });

  it('is abandoned by a later load, and rejects duplicate ids', async () => {
    const e = new Editor();
    const pending = e.loadAsync(shapes(5000), 0);
    e.load(shapes(3, 'x'));
    await pending;
    expect(e.getOrderedIds()).toEqual(['x0', 'x1', 'x2']);
    await expect(e.loadAsync([box('d', 0, 0, 10, 10), box('d', 5, 5, 10, 10)])).rejects.toThrow(/Duplicate/);
  });
});

describe('loadStoredAsync', () => {
  const stored = (n: number) =>
    Array.from({ length: n }, (_, i) =>
      i % 3 === 0
        ? { id: `p${i}`, name: 'field', bounding_box: { x: i, y: 0, w: 10, h: 10 }, polygon: { path: [[i, 0], [i + 10, 0], [i + 10, 10]] }, attributes: [] }
        : { id: `b${i}`, name: 'car', bounding_box: { x: i, y: 5, w: 20, h: 30 }, attributes: [], sam2_area: i },
    );

  it('validates, converts and builds the same document as loadStored(), reporting progress', async () => {
    const a = new Editor();
    a.loadStored(stored(3000));
    const b = new Editor();
    const progress: [number, number][] = [];
    expect(await b.loadStoredAsync(stored(3000), { budgetMs: 0, onProgress: (done, total) => progress.push([done, total]) })).toBe(true);
    expect(b.getDocument()).toEqual(a.getDocument());
    expect(b.getAnnotations().map(editorToStored)).toEqual(stored(3000));
    expect(b.getOrderedIds()).toEqual(a.getOrderedIds());
    expect(progress.length).toBeGreaterThan(10);
    expect(progress.every(([, total]) => total === 3000)).toBe(true);
    expect(progress.map(([done]) => done)).toEqual([...progress.map(([done]) => done)].sort((x, y) => x - y));
    expect(progress.at(-1)).toEqual([3000, 3000]);
    expect(await b.loadStoredAsync([])).toBe(true);
    expect(b.annotationCount).toBe(0);
  });

  it('rejects invalid annotations and duplicate ids with the index in the path, leaving the document as it was', async () => {
    const e = new Editor();
    e.loadStored(stored(3));
    const bad = stored(50);
    (bad[40] as { polygon?: unknown }).polygon = { path: [[0, 0], [1, 1]] };
    await expect(e.loadStoredAsync(bad, { budgetMs: 0 })).rejects.toMatchObject({ name: 'ZodError', issues: [expect.objectContaining({ path: [40, 'polygon', 'path'] })] });
    const dup = stored(50);
    dup[30] = { ...dup[10]! };
    await expect(e.loadStoredAsync(dup, { budgetMs: 0 })).rejects.toMatchObject({ issues: [expect.objectContaining({ path: [30, 'id'], message: 'Duplicate annotation id b10' })] });
    await expect(e.loadStoredAsync({ annotations: [] })).rejects.toMatchObject({ name: 'ZodError' });
    expect(e.getOrderedIds()).toEqual(['p0', 'b1', 'b2']);
  });

  it('is cancelled by cancelLoad() or a later load: it resolves false and the document stays', async () => {
    const e = new Editor();
    e.loadStored(stored(2));
    const pending = e.loadStoredAsync(stored(3000), { budgetMs: 0 });
    e.cancelLoad();
    expect(await pending).toBe(false);
    expect(e.getOrderedIds()).toEqual(['p0', 'b1']);
    const first = e.loadStoredAsync(stored(3000), { budgetMs: 0 });
    const second = e.loadStoredAsync(stored(5), { budgetMs: 0 });
    expect(await first).toBe(false);
    expect(await second).toBe(true);
    expect(e.annotationCount).toBe(5);
  });
});
