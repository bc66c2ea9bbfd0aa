// Changes made elsewhere (a save conflict merged by the editor screen) applied to the live
// document: what the user was doing (selection, hidden shapes, undo history, a drag) survives.
import { describe, expect, it } from 'vitest';
import { box, keypoint, polygon, TestEditor } from './helpers';

function loaded() {
  const t = new TestEditor();
  t.editor.load([box('a', 100, 100, 50, 50), box('b', 300, 100, 50, 50), box('c', 500, 100, 50, 50)]);
  return t;
}

describe('applyRemote', () => {
  it('adds, replaces and removes shapes, keeping the selection, hidden shapes and undo of local edits', () => {
    const t = loaded();
    t.editor.execute('move', { ids: ['a'], dx: 10, dy: 0 });
    t.editor.select(['a', 'c']);
    t.editor.hide(['b']);
    t.editor.applyRemote([box('b', 310, 100, 50, 50), keypoint('r', 5, 5)], ['c']);

    expect(t.editor.getOrderedIds()).toEqual(['a', 'b', 'r']);
    expect(t.editor.getAnnotation('b')).toMatchObject({ x: 310 });
    expect(t.selected).toEqual(['a']);
    expect(t.editor.isHidden('b')).toBe(true);
    expect(t.editor.annotationCount).toBe(3);
    expect(t.editor.getUndoLabels()).toEqual(['Move 1 annotation(s)']);
    t.editor.undo();
    expect(t.editor.getAnnotation('a')).toMatchObject({ x: 100 });
    expect(t.editor.getAnnotation('b')).toMatchObject({ x: 310 });
    expect(t.editor.getAnnotation('r')).toBeDefined();
  });

  it('undo never puts back an older copy of a shape changed elsewhere', () => {
    const t = loaded();
    t.editor.execute('move', { ids: ['a', 'b'], dx: 5, dy: 5 });
    t.editor.execute('set-class', { ids: ['c'], class: 'truck' });
    // The other side's edit of c won the merge; its removal of b too.
    t.editor.applyRemote([box('c', 0, 0, 20, 20, 'bus')], ['b']);
    // 'Set class' only touched c: nothing of it is left to undo.
    expect(t.editor.getUndoLabels()).toEqual(['Move 2 annotation(s)']);
    t.editor.undo();
    expect(t.editor.getOrderedIds()).toEqual(['a', 'c']);
    expect(t.editor.getAnnotation('a')).toMatchObject({ x: 100, y: 100 });
    expect(t.editor.getAnnotation('c')).toMatchObject({ x: 0, class: 'bus' });
    t.editor.redo();
    expect(t.editor.getAnnotation('a')).toMatchObject({ x: 105 });
    expect(t.editor.getAnnotation('b')).toBeUndefined();
  });

  it('keeps counts and paint order right when undo and redo cross shapes added elsewhere', () => {
    const t = loaded();
    t.editor.execute('create', { annotation: box('x', 700, 100, 50, 50) });
    t.editor.applyRemote([keypoint('r', 5, 5)]);
    t.editor.undo();
    expect(t.editor.annotationCount).toBe(4);
    t.editor.redo();
    t.editor.execute('create', { annotation: keypoint('y', 9, 9) });
    const ids = t.editor.getOrderedIds();
    expect([...ids].sort()).toEqual(['a', 'b', 'c', 'r', 'x', 'y']);
    expect(t.editor.annotationCount).toBe(6);
    expect(new Set(ids.map((id) => t.editor.getZ(id))).size).toBe(6);
    expect(ids.at(-1)).toBe('y');
  });

  it('leaves a drag in progress alone: it goes on and is one undo step', () => {
    const t = loaded();
    t.editor.select(['a']);
    t.down(120, 120).move(130, 120);
    t.editor.applyRemote([box('c', 520, 100, 50, 50), polygon('p', [[0, 0], [10, 0], [10, 10]])]);
    t.move(150, 130).up(150, 130);
    expect(t.editor.getAnnotation('a')).toMatchObject({ x: 130, y: 110 });
    expect(t.editor.getUndoLabels()).toEqual(['Move 1 annotation(s)']);
    t.editor.undo();
    expect(t.editor.getAnnotation('a')).toMatchObject({ x: 100, y: 100 });
    expect(t.editor.getAnnotation('c')).toMatchObject({ x: 520 });
    expect(t.editor.getAnnotation('p')).toBeDefined();
  });

  it('refuses an invalid shape and changes nothing', () => {
    const t = loaded();
    expect(() => t.editor.applyRemote([box('a', 0, 0, 5, 5), polygon('bad', [[0, 0], [1, 1]])])).toThrow();
    expect(t.editor.getAnnotation('a')).toMatchObject({ x: 100 });
    expect(t.editor.getAnnotation('bad')).toBeUndefined();
  });
});
