// Undo history per image for the session: loading another image's document (with a historyKey)
// shelves the history of the one it replaces, and loading that image again brings it back, as
// long as its shapes are still as the history left them (a saved copy read back from the server).
import { describe, expect, it } from 'vitest';
import { Editor, editorToStored, type EditorAnnotation } from '../../src/engine';
import { SHELVED_HISTORIES } from '../../src/engine/history';
import { box } from './helpers';

/** What the server sends back after the editor saved `e`'s document: the stored form, as new objects. */
const saved = (e: Editor) => JSON.parse(JSON.stringify(e.getAnnotations().map(editorToStored))) as unknown[];

function editor(): Editor {
  let n = 0;
  return new Editor({ idGenerator: () => `new${++n}`, viewport: { width: 1000, height: 800 }, image: { width: 2000, height: 1500 } });
}

describe('undo history per image', () => {
  it('comes back with the image: undo and redo work on the reloaded copy', async () => {
    const e = editor();
    await e.loadStoredAsync([editorToStored(box('a1', 10, 10, 50, 50))], { historyKey: 'A' });
    e.execute('create', { annotation: box('a2', 100, 100, 40, 40) });
    e.execute('move', { ids: ['a1'], dx: 5, dy: 5 });
    e.execute('delete', { ids: ['a1'] });
    expect(e.getUndoLabels()).toEqual(['Create box', 'Move 1 annotation(s)', 'Delete 1 annotation(s)']);
    e.undo(); // the delete, so there is a redo entry too
    const serverA = saved(e);

    await e.loadStoredAsync([editorToStored(box('b1', 0, 0, 20, 20))], { historyKey: 'B' });
    expect(e.getUndoLabels()).toEqual([]);
    expect(e.canRedo()).toBe(false);
    e.execute('move', { ids: ['b1'], dx: 1, dy: 1 });

    await e.loadStoredAsync(serverA, { historyKey: 'A' });
    expect(e.getUndoLabels()).toEqual(['Create box', 'Move 1 annotation(s)']);
    expect(e.getRedoLabels()).toEqual(['Delete 1 annotation(s)']);
    expect(e.redo()).toBe(true);
    expect(e.getAnnotation('a1')).toBeUndefined();
    expect(e.undo()).toBe(true);
    expect(e.getAnnotation('a1')).toMatchObject({ x: 15, y: 15 });
    expect(e.undo()).toBe(true); // the move
    expect(e.getAnnotation('a1')).toMatchObject({ x: 10, y: 10 });
    expect(e.undo()).toBe(true); // the create
    expect(e.getAnnotation('a2')).toBeUndefined();
    expect(e.annotationCount).toBe(1);
    expect(e.canUndo()).toBe(false);

    // B's history was shelved in turn.
    await e.loadStoredAsync([editorToStored(box('b1', 1, 1, 20, 20))], { historyKey: 'B' });
    expect(e.getUndoLabels()).toEqual(['Move 1 annotation(s)']);
    e.undo();
    expect(e.getAnnotation('b1')).toMatchObject({ x: 0, y: 0 });
  });

  it('forgets shapes changed elsewhere meanwhile, keeps the rest', async () => {
    const e = editor();
    await e.loadStoredAsync([editorToStored(box('a1', 10, 10, 50, 50)), editorToStored(box('a2', 200, 200, 50, 50))], { historyKey: 'A' });
    e.execute('move', { ids: ['a1'], dx: 5, dy: 0 });
    e.execute('move', { ids: ['a2'], dx: 5, dy: 0 });
    await e.loadStoredAsync([], { historyKey: 'B' });
    // Someone else moved a2 again before A is opened again.
    const server = [editorToStored(box('a1', 15, 10, 50, 50)), editorToStored(box('a2', 300, 300, 50, 50))];
    await e.loadStoredAsync(server, { historyKey: 'A' });
    expect(e.getUndoLabels()).toEqual(['Move 1 annotation(s)']);
    e.undo();
    expect(e.getAnnotation('a1')).toMatchObject({ x: 10 });
    expect(e.getAnnotation('a2')).toMatchObject({ x: 300, y: 300 });
  });

  it('a shape put back by undo goes on top of the reloaded paint order', async () => {
    const e = editor();
    const list: EditorAnnotation[] = [box('a1', 0, 0, 10, 10), box('a2', 20, 0, 10, 10), box('a3', 40, 0, 10, 10)];
    await e.loadStoredAsync(list.map(editorToStored), { historyKey: 'A' });
    e.execute('delete', { ids: ['a1'] });
    const serverA = saved(e);
    await e.loadStoredAsync([], { historyKey: 'B' });
    await e.loadStoredAsync(serverA, { historyKey: 'A' });
    expect(e.getOrderedIds()).toEqual(['a2', 'a3']);
    e.undo();
    expect(e.getOrderedIds()).toEqual(['a2', 'a3', 'a1']);
    e.execute('create', { annotation: box('a4', 60, 0, 10, 10) });
    expect(e.getOrderedIds()).toEqual(['a2', 'a3', 'a1', 'a4']);
  });

  it('a load without a key starts empty, and the shelf keeps the last images only', async () => {
    const e = editor();
    for (let i = 0; i < SHELVED_HISTORIES + 3; i++) {
      await e.loadStoredAsync([], { historyKey: `img${i}` });
      e.execute('create', { annotation: box(`s${i}`, 0, 0, 20, 20) });
    }
    await e.loadStoredAsync([]);
    expect(e.canUndo()).toBe(false);
    const keys = e.shelvedHistoryKeys();
    expect(keys).toHaveLength(SHELVED_HISTORIES);
    expect(keys[0]).toBe('img3');
    expect(keys.at(-1)).toBe(`img${SHELVED_HISTORIES + 2}`);
    // The oldest ones are gone: their image opens with no undo.
    await e.loadStoredAsync([editorToStored(box('s0', 0, 0, 20, 20))], { historyKey: 'img0' });
    expect(e.canUndo()).toBe(false);
    await e.loadStoredAsync([editorToStored(box('s5', 0, 0, 20, 20))], { historyKey: 'img5' });
    expect(e.getUndoLabels()).toEqual(['Create box']);
  });

  it('a batch comes back as one entry', async () => {
    const e = editor();
    await e.loadStoredAsync([editorToStored(box('a1', 10, 10, 50, 50))], { historyKey: 'A' });
    e.execute('move', { ids: ['a1'], dx: 1, dy: 0 });
    e.batch('Outer', () => {
      e.execute('move', { ids: ['a1'], dx: 1, dy: 0 });
    });
    await e.loadStoredAsync([], { historyKey: 'B' });
    await e.loadStoredAsync([editorToStored(box('a1', 12, 10, 50, 50))], { historyKey: 'A' });
    expect(e.getUndoLabels()).toEqual(['Move 1 annotation(s)', 'Outer']);
  });
});

describe('input paused while another document loads', () => {
  it('pointer and key input reach no tool until resumed; a drag in progress is rolled back', async () => {
    const e = editor();
    await e.loadStoredAsync([editorToStored(box('a1', 100, 100, 100, 100))], { historyKey: 'A' });
    e.fitToScreen();
    const at = (x: number, y: number) => {
      const [sx, sy] = e.imageToScreen(x, y);
      return { x: sx, y: sy, button: 0 };
    };
    e.setTool('select');
    e.pointerDown(at(150, 150));
    e.pointerMove(at(170, 150));
    expect(e.getAnnotation('a1')).toMatchObject({ x: 120 });
    e.setInputPaused(true);
    expect(e.getAnnotation('a1')).toMatchObject({ x: 100 });
    e.pointerMove(at(200, 150));
    e.pointerUp(at(200, 150));
    e.pointerDown(at(150, 150));
    e.pointerMove(at(190, 190));
    e.pointerUp(at(190, 190));
    expect(e.keyDown({ key: 'Delete' })).toBe(false);
    expect(e.getAnnotation('a1')).toMatchObject({ x: 100, y: 100 });
    expect(e.canUndo()).toBe(false);
    e.setInputPaused(false);
    e.pointerDown(at(150, 150));
    e.pointerMove(at(160, 150));
    e.pointerUp(at(160, 150));
    expect(e.getAnnotation('a1')).toMatchObject({ x: 110 });
  });
});
