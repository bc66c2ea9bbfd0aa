import { describe, expect, it } from 'vitest';
import { Editor, SceneTracker } from '../../src/engine';
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
    let yielded = false;
    setTimeout(() => (yielded = true), 0);
    await b.loadAsync(shapes(5000), 0);
    expect(yielded).toBe(true); // it gave the event loop a turn
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
