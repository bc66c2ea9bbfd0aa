// Reviewing a model's predictions (issue 34 §3): pending predictions (stored annotations with
// `source: {model_id, score, pending: true}`) accepted or rejected one by one, all at once, by
// the review keys, or by editing them; the score filter; every change one undo step.
import { describe, expect, it } from 'vitest';
import { editorToStored, type Editor } from '../../src/engine';
import { TestEditor } from './helpers';

const box = (id: string, x: number, score: number | null, pending = true) => ({
  id,
  name: 'car',
  bounding_box: { x, y: 100, w: 100, h: 80 },
  ...(score === null ? {} : { source: { model_id: 'm1', score, pending } }),
});

/** Four pending predictions (newest last: listed first) and one ordinary box. */
function reviewEditor(): TestEditor {
  const t = new TestEditor();
  t.editor.loadStored([box('mine', 50, null), box('p90', 300, 0.9), box('p30', 500, 0.3), box('p70', 700, 0.7), box('p50', 900, 0.5)]);
  return t;
}

const source = (e: Editor, id: string) => editorToStored(e.getAnnotation(id)!).source as { model_id: string; score: number; pending: boolean } | undefined;
const pendingIds = (e: Editor) => e.predictions.pending().sort();

describe('reviewing predictions', () => {
  it('lists the pending predictions newest first, and accepting one keeps its model and score', () => {
    const { editor } = reviewEditor();
    expect(editor.predictions.pending()).toEqual(['p50', 'p70', 'p30', 'p90']);
    expect(editor.predictions.accept(['p70'])).toBe(1);
    expect(source(editor, 'p70')).toEqual({ model_id: 'm1', score: 0.7, pending: false });
    expect(editor.predictions.counts()).toEqual({ pending: 3, shown: 3 });
    expect(editor.getUndoLabels().at(-1)).toBe('Accept 1 prediction');
    editor.undo();
    expect(source(editor, 'p70')?.pending).toBe(true);
  });

  it('Accept all and Reject all are one undo step each; an ordinary shape is never touched', () => {
    const { editor } = reviewEditor();
    expect(editor.predictions.acceptAll()).toBe(4);
    expect(editor.predictions.counts().pending).toBe(0);
    editor.undo();
    expect(pendingIds(editor)).toEqual(['p30', 'p50', 'p70', 'p90']);
    expect(editor.predictions.rejectAll()).toBe(4);
    expect(editor.getOrderedIds()).toEqual(['mine']);
    expect(editor.getUndoLabels().at(-1)).toBe('Reject 4 predictions');
    editor.undo();
    expect(editor.annotationCount).toBe(5);
    expect(editor.predictions.reject(['mine'])).toBe(0);
    expect(editor.getAnnotation('mine')).toBeDefined();
  });

  it('hides pending predictions under the score: not hit, not selectable, not counted as shown; Accept all takes the shown ones', () => {
    const t = reviewEditor();
    const { editor } = t;
    editor.predictions.setMinScore(0.6);
    expect([...editor.getView().hidden].sort()).toEqual(['p30', 'p50']);
    expect(editor.predictions.counts()).toEqual({ pending: 4, shown: 2 });
    expect(editor.hitTest(550, 140)).toBeNull();
    t.click(550, 140);
    expect(t.selected).toEqual([]);
    editor.showAll(); // the eye buttons do not override the score
    expect(editor.isHidden('p30')).toBe(true);
    expect(editor.predictions.acceptAll()).toBe(2);
    expect(pendingIds(editor)).toEqual(['p30', 'p50']);
    editor.predictions.setMinScore(0);
    expect(editor.getView().hidden.size).toBe(0);
    expect(editor.hitTest(550, 140)).toBe('p30');
  });

  it('a selected prediction the score comes to hide is unselected', () => {
    const { editor } = reviewEditor();
    editor.select(['p30']);
    editor.predictions.setMinScore(0.4);
    expect(editor.getSelectedIds()).toEqual([]);
  });

  it('steps through the shown pending predictions (wrapping), selecting and centring each', () => {
    const { editor } = reviewEditor();
    editor.predictions.setMinScore(0.4);
    expect(editor.predictions.step(1)).toBe('p50');
    expect(editor.getSelectedIds()).toEqual(['p50']);
    const [sx, sy] = editor.imageToScreen(950, 140);
    expect([Math.round(sx), Math.round(sy)]).toEqual([500, 400]); // the viewport's centre
    expect(editor.predictions.step(1)).toBe('p70');
    expect(editor.predictions.step(1)).toBe('p90');
    expect(editor.predictions.step(1)).toBe('p50');
    expect(editor.predictions.step(-1)).toBe('p90');
  });

  it('Enter accepts the selected prediction and Delete rejects it, each then selecting the next', () => {
    const t = reviewEditor();
    const { editor } = t;
    editor.predictions.step(1); // p50
    expect(t.key('Enter')).toBe(true);
    expect(source(editor, 'p50')?.pending).toBe(false);
    expect(editor.getSelectedIds()).toEqual(['p70']);
    expect(t.key('Delete')).toBe(true);
    expect(editor.getAnnotation('p70')).toBeUndefined();
    expect(editor.getSelectedIds()).toEqual(['p30']);
    editor.undo();
    expect(editor.getAnnotation('p70')).toBeDefined();
    // on an ordinary shape Enter is not taken and Delete deletes as before
    editor.select(['mine']);
    expect(t.key('Enter')).toBe(false);
    expect(t.key('Delete')).toBe(true);
    expect(editor.getAnnotation('mine')).toBeUndefined();
  });

  it('editing a prediction accepts it in the same undo step: move, resize, class, attributes', () => {
    const t = reviewEditor();
    const { editor } = t;
    t.click(350, 140);
    expect(t.selected).toEqual(['p90']);
    expect(source(editor, 'p90')?.pending).toBe(true); // a click selects, it does not accept
    t.drag([350, 140], [360, 150]);
    expect(source(editor, 'p90')).toEqual({ model_id: 'm1', score: 0.9, pending: false });
    expect(editor.getAnnotation('p90')).toMatchObject({ x: 310, y: 110 });
    editor.undo();
    expect(source(editor, 'p90')?.pending).toBe(true);
    expect(editor.getAnnotation('p90')).toMatchObject({ x: 300, y: 100 });
    editor.execute('resize-box', { id: 'p70', rect: { x: 700, y: 100, width: 120, height: 80 } });
    editor.execute('set-class', { ids: ['p30'], class: 'truck' });
    editor.execute('set-attributes', { ids: ['p50'], attributes: [{ name: 'parked', value: true }] });
    expect(editor.predictions.counts().pending).toBe(1);
    expect(source(editor, 'p30')).toEqual({ model_id: 'm1', score: 0.3, pending: false });
  });

  it('changes made elsewhere (a live peer, a save merged) are taken as they come, pending or not', () => {
    const { editor } = reviewEditor();
    const peerAccepted = { ...editor.getAnnotation('p90')!, extra: { source: { model_id: 'm1', score: 0.9, pending: false } } };
    editor.applyRemote([peerAccepted], ['p30']);
    expect(pendingIds(editor)).toEqual(['p50', 'p70']);
  });

  it('a read-only editor accepts and rejects nothing', () => {
    const { editor } = reviewEditor();
    editor.setReadOnly(true);
    expect(editor.predictions.acceptAll()).toBe(0);
    expect(editor.predictions.counts().pending).toBe(4);
    editor.select(['p90']);
    expect(editor.keyDown({ key: 'Delete' })).toBe(false);
  });
});
