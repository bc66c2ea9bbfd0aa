// View only (Editor.setReadOnly, for roles without annotations.write): nothing the user does
// changes the document; looking at it (select, marquee, hide, copy, pan, zoom) still works.
import { describe, expect, it } from 'vitest';
import { ReadOnlyError } from '../../src/engine';
import { box, polygon, TestEditor } from './helpers';

function viewer() {
  const t = new TestEditor();
  t.editor.load([box('a', 100, 100, 50, 50), polygon('p', [[300, 300], [400, 300], [400, 400]]), box('c', 600, 600, 40, 40)]);
  t.editor.setReadOnly(true);
  const before = t.editor.getDocument();
  let changes = 0;
  t.editor.subscribe((c) => c.document && changes++);
  return { t, before, changes: () => changes };
}

describe('read-only editor', () => {
  it('refuses drawing tools, commands, undo, delete, nudge, paste and relabel', () => {
    const { t, before, changes } = viewer();
    expect(t.editor.readOnly).toBe(true);
    expect(t.editor.getView().readOnly).toBe(true);
    t.editor.setActiveClass('car');
    t.editor.setTool('box');
    expect(t.editor.getView().tool).toBe('select');
    t.drag([700, 100], [800, 200]); // a select-tool marquee over empty space, not a box
    expect(() => t.editor.execute('delete', { ids: ['a'] })).toThrow(ReadOnlyError);
    expect(() => t.editor.batch('Complete', () => 1)).toThrow(ReadOnlyError);
    t.editor.select(['a', 'p']);
    expect(t.key('Delete')).toBe(false);
    expect(t.key('Backspace')).toBe(false);
    expect(t.key('ArrowLeft')).toBe(false);
    expect(t.editor.deleteSelected()).toBe(0);
    t.editor.nudgeSelected(5, 5);
    t.editor.setSelectedClass('truck');
    expect(t.editor.copy()).toHaveLength(2);
    expect(t.editor.paste()).toEqual([]);
    expect(t.editor.undo()).toBe(false);
    expect(t.editor.canUndo()).toBe(false);
    expect(t.editor.getDocument()).toEqual(before);
    expect(changes()).toBe(0);
  });

  it('selects by click, shift-click and marquee, but moves nothing and offers no handles', () => {
    const { t, before, changes } = viewer();
    t.click(120, 120);
    expect(t.editor.getSelectedIds()).toEqual(['a']);
    t.drag([120, 120], [220, 220]); // a drag on a selected shape would move it
    t.drag([300, 300], [350, 350]); // a vertex of... nothing selected yet: select p, then drag its vertex
    t.click(380, 320);
    expect(t.editor.getSelectedIds()).toEqual(['p']);
    t.drag([400, 300], [450, 250]); // the vertex handle
    t.editor.select(['a']);
    t.drag([150, 150], [200, 200]); // the box's resize handle
    t.click(620, 620, { shiftKey: true });
    expect(t.editor.getSelectedIds()).toEqual(['a', 'c']);
    t.drag([50, 50], [500, 500]); // marquee around a and p
    expect(t.editor.getSelectedIds()).toEqual(['a', 'p']);
    expect(t.editor.getView().selectedVertex).toBeNull();
    expect(t.editor.getDocument()).toEqual(before);
    expect(changes()).toBe(0);
    // looking around still works
    t.editor.hideSelected();
    expect(t.editor.isHidden('a')).toBe(true);
    t.editor.zoomIn();
    expect(t.key('d')).toBe(true);
  });

  it('turning it on cancels a drawing in progress and falls back to select; loads still replace the document', () => {
    const t = new TestEditor();
    t.editor.setActiveClass('car');
    t.editor.setTool('polygon');
    t.click(10, 10).click(100, 10);
    expect(t.editor.getView().drawing).not.toBeNull();
    t.editor.setReadOnly(true);
    expect(t.editor.getView()).toMatchObject({ tool: 'select', drawing: null, readOnly: true });
    t.editor.loadStored([{ id: 'x', name: 'car', bounding_box: { x: 1, y: 2, w: 30, h: 40 } }]);
    expect(t.editor.getOrderedIds()).toEqual(['x']);
    t.editor.setReadOnly(false);
    t.editor.setTool('box');
    t.drag([100, 100], [200, 200]);
    expect(t.annotations).toHaveLength(2);
  });
});
