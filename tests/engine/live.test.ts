// Live co-editing (issue 20): a `changed` from another person, as the editor screen applies it
// (stored shapes parsed, then Editor.applyRemote), goes into the live document without a reload:
// the selection, a drag in progress and the local undo history stay, and undo undoes only the
// local edit.
import { describe, expect, it } from 'vitest';
import { editorToStored, parseStoredAnnotations } from '../../src/engine';
import { box, TestEditor } from './helpers';

/** A changed message's lists, as they come over the socket (stored form). */
function remote(t: TestEditor, upserts: ReturnType<typeof box>[], removed: string[] = []) {
  const stored = JSON.parse(JSON.stringify(upserts.map(editorToStored))) as unknown[];
  t.editor.applyRemote(parseStoredAnnotations(stored), removed);
}

function opened() {
  const t = new TestEditor();
  t.editor.load([box('a', 100, 100, 50, 50), box('b', 300, 100, 50, 50)]);
  return t;
}

describe('a change saved by another person', () => {
  it('a remote upsert appears, with the selection kept', () => {
    const t = opened();
    t.editor.select(['a']);
    remote(t, [box('r', 600, 100, 40, 40, 'truck')]);
    expect(t.editor.getOrderedIds()).toEqual(['a', 'b', 'r']);
    expect(t.editor.getAnnotation('r')).toMatchObject({ type: 'box', x: 600, class: 'truck' });
    expect(t.selected).toEqual(['a']);
    expect(t.editor.getUndoLabels()).toEqual([]);
  });

  it('a remote removal disappears, and leaves the selection', () => {
    const t = opened();
    t.editor.select(['a', 'b']);
    remote(t, [], ['b']);
    expect(t.editor.getOrderedIds()).toEqual(['a']);
    expect(t.editor.getAnnotation('b')).toBeUndefined();
    expect(t.selected).toEqual(['a']);
  });

  it('undo after a remote change undoes only the local edit', () => {
    const t = opened();
    t.editor.execute('move', { ids: ['a'], dx: 10, dy: 0 });
    remote(t, [box('b', 320, 100, 50, 50), box('r', 600, 100, 40, 40)]);
    t.editor.undo();
    expect(t.editor.getAnnotation('a')).toMatchObject({ x: 100 });
    expect(t.editor.getAnnotation('b')).toMatchObject({ x: 320 });
    expect(t.editor.getAnnotation('r')).toBeDefined();
    expect(t.editor.canUndo()).toBe(false);
  });

  it('a drag in progress goes on through a remote change and stays one undo step', () => {
    const t = opened();
    t.editor.select(['a']);
    t.down(120, 120).move(130, 120);
    remote(t, [box('r', 600, 100, 40, 40)], ['b']);
    t.move(140, 125).up(140, 125);
    expect(t.editor.getAnnotation('a')).toMatchObject({ x: 120, y: 105 });
    expect(t.editor.getUndoLabels()).toEqual(['Move 1 annotation(s)']);
    t.editor.undo();
    expect(t.editor.getAnnotation('a')).toMatchObject({ x: 100, y: 100 });
    expect(t.editor.getOrderedIds()).toEqual(['a', 'r']);
  });
});
