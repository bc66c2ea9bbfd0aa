import { describe, expect, it } from 'vitest';
import { Editor, SceneTracker } from '../../src/engine';
import { box, keypoint } from './helpers';

describe('scene diffs for a renderer', () => {
  it('sends the whole scene first, then only what changed', () => {
    const e = new Editor();
    e.load([box('a', 0, 0, 20, 20), box('b', 50, 0, 20, 20), keypoint('k', 5, 5)]);
    const scene = new SceneTracker(e);
    const first = scene.pull();
    expect(first.reset).toBe(true);
    expect(first.upserts.map((u) => [u.id, u.z])).toEqual([['a', 0], ['b', 1], ['k', 2]]);
    expect(scene.pull()).toEqual({ reset: false, upserts: [], removed: [] });

    e.execute('move', { ids: ['b'], dx: 1, dy: 0 });
    e.execute('delete', { ids: ['a'] });
    e.select(['k']); // view only: no geometry to rebuild
    const d = scene.pull();
    expect(d.upserts.map((u) => u.id)).toEqual(['b']);
    expect(d.upserts[0]!.annotation).toMatchObject({ x: 51 });
    expect(d.removed).toEqual(['a']);

    e.undo(); // 'a' comes back at its old depth
    expect(scene.pull().upserts.map((u) => [u.id, u.z])).toEqual([['a', 0]]);
  });

  it('skips shapes that changed and changed back before the pull', () => {
    const e = new Editor();
    e.load([box('a', 0, 0, 20, 20)]);
    const scene = new SceneTracker(e);
    scene.pull();
    e.execute('move', { ids: ['a'], dx: 5, dy: 5 });
    e.undo();
    expect(scene.pull().upserts).toEqual([]);
  });

  it('resets after a load or replace-all', () => {
    const e = new Editor();
    const scene = new SceneTracker(e);
    scene.pull();
    e.load([box('x', 0, 0, 20, 20)]);
    e.execute('move', { ids: ['x'], dx: 1, dy: 0 });
    const d = scene.pull();
    expect(d.reset).toBe(true);
    expect(d.upserts.map((u) => u.annotation)).toEqual([box('x', 1, 0, 20, 20)]);
    scene.dispose();
    e.execute('move', { ids: ['x'], dx: 1, dy: 0 });
    expect(scene.pull().upserts).toEqual([]);
  });

  it('hands out a whole scene in slices with a limit, then the changes made meanwhile', () => {
    const e = new Editor();
    e.load(Array.from({ length: 5 }, (_, i) => box(`b${i}`, i * 30, 0, 20, 20)));
    const scene = new SceneTracker(e);
    const a = scene.pull(2);
    expect([a.reset, a.more, a.upserts.map((u) => u.id)]).toEqual([true, true, ['b0', 'b1']]);
    e.execute('move', { ids: ['b0'], dx: 1, dy: 0 }); // already sent: follows after the scene
    e.execute('delete', { ids: ['b3'] }); // not sent yet: never sent
    const b = scene.pull(2);
    expect([b.reset, b.more, b.upserts.map((u) => u.id)]).toEqual([false, true, ['b2']]);
    const c = scene.pull(2);
    expect([c.more, c.upserts.map((u) => u.id)]).toEqual([undefined, ['b4']]);
    const d = scene.pull(2);
    expect(d.upserts.map((u) => [u.id, u.annotation])).toEqual([['b0', box('b0', 1, 0, 20, 20)]]);
    expect(d.removed).toEqual([]);
  });
});
