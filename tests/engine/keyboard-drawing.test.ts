// Drawing by keyboard (issue 37, WCAG 2.1.1): with the canvas focused, Enter shows a cursor at the
// middle of the view, the arrows move it in screen steps (Shift bigger, Alt 1 px), Enter or Space
// places a corner or point, Enter again on the point just placed ends a polygon, Escape cancels
// the shape and then hides the cursor. Without focus the keys keep their old meanings.
import { describe, expect, it } from 'vitest';
import { KEY_CURSOR_STEP, KEY_CURSOR_STEP_SHIFT } from '../../src/engine';
import { TestEditor } from './helpers';

/** A test editor at scale 2 (the image's 1 px is 2 screen px), canvas focused, class "car". */
function focused(): TestEditor {
  const t = new TestEditor();
  t.editor.setActiveClass('car');
  t.editor.setCamera({ x: 0, y: 0, scale: 2 });
  t.editor.setCanvasFocused(true);
  return t;
}

const cursor = (t: TestEditor) => t.editor.getView().keyCursor ?? null;

describe('drawing by keyboard', () => {
  it('draws a box: Enter shows the cursor at the view centre, arrows move it in screen steps, two places make the box, selected', () => {
    const t = focused();
    t.editor.setTool('box');
    expect(t.key('Enter')).toBe(true);
    // The viewport is 1000 x 800 screen px: its middle is image (250, 200) at scale 2.
    expect(cursor(t)).toEqual([250, 200]);
    for (let i = 0; i < 3; i++) t.key('ArrowLeft');
    t.key('ArrowUp', { shiftKey: true });
    const first = [250 - (3 * KEY_CURSOR_STEP) / 2, 200 - KEY_CURSOR_STEP_SHIFT / 2];
    expect(cursor(t)).toEqual(first);
    expect(t.key(' ')).toBe(true);
    t.key('ArrowRight', { shiftKey: true });
    t.key('ArrowRight', { shiftKey: true });
    t.key('ArrowDown', { shiftKey: true });
    t.key('ArrowDown', { altKey: true });
    // The box follows the cursor while it is drawn.
    expect(t.editor.getView().drawing).toMatchObject({ kind: 'box' });
    expect(t.key('Enter')).toBe(true);
    expect(t.annotations).toHaveLength(1);
    expect(t.annotations[0]).toMatchObject({ type: 'box', class: 'car', x: first[0], y: first[1], width: KEY_CURSOR_STEP_SHIFT, height: KEY_CURSOR_STEP_SHIFT / 2 + 0.5 });
    expect([...t.editor.getView().selected]).toEqual(['id1']);
    // One undo step.
    t.editor.undo();
    expect(t.annotations).toHaveLength(0);
  });

  it('draws a polygon: Enter and Space place points, Enter on the point just placed closes it', () => {
    const t = focused();
    t.editor.setTool('polygon');
    t.key('Enter');
    t.key('Enter');
    for (let i = 0; i < 4; i++) t.key('ArrowRight');
    t.key(' ');
    for (let i = 0; i < 4; i++) t.key('ArrowDown');
    t.key('Enter');
    expect(t.editor.getView().drawing).toMatchObject({ kind: 'polygon', points: [[250, 200], [270, 200], [270, 220]] });
    expect(t.annotations).toHaveLength(0);
    t.key('Enter');
    expect(t.annotations).toHaveLength(1);
    expect(t.annotations[0]).toMatchObject({ type: 'polygon', class: 'car', points: [[250, 200], [270, 200], [270, 220]] });
    // The cursor stays for the next shape.
    expect(cursor(t)).toEqual([270, 220]);
  });

  it('Escape cancels the shape being drawn, then hides the cursor; then it is the usual Escape', () => {
    const t = focused();
    t.editor.setTool('polygon');
    t.key('Enter');
    t.key('Enter');
    t.key('ArrowRight');
    t.key('Enter');
    expect(t.editor.getView().drawing).not.toBeNull();
    expect(t.key('Escape')).toBe(true);
    expect(t.editor.getView().drawing).toBeNull();
    expect(cursor(t)).not.toBeNull();
    expect(t.key('Escape')).toBe(true);
    expect(cursor(t)).toBeNull();
    expect(t.key('Escape')).toBe(false);
    expect(t.annotations).toHaveLength(0);
  });

  it('without canvas focus, or with the select tool, the keys keep their meaning (arrows nudge, Enter is not taken)', () => {
    const t = focused();
    t.editor.setTool('box');
    t.drag([10, 10], [100, 100]);
    t.editor.setCanvasFocused(false);
    expect(t.key('Enter')).toBe(false);
    expect(cursor(t)).toBeNull();
    expect(t.key('ArrowRight')).toBe(true);
    expect(t.annotations[0]).toMatchObject({ x: 11 });
    t.editor.setCanvasFocused(true);
    t.editor.setTool('select');
    expect(t.key('Enter')).toBe(false);
    expect(cursor(t)).toBeNull();
  });

  it('losing focus or moving the pointer hides the cursor', () => {
    const t = focused();
    t.editor.setTool('box');
    t.key('Enter');
    t.editor.setCanvasFocused(false);
    expect(cursor(t)).toBeNull();
    t.editor.setCanvasFocused(true);
    t.key('Enter');
    expect(cursor(t)).not.toBeNull();
    t.move(5, 5);
    expect(cursor(t)).toBeNull();
  });
});
