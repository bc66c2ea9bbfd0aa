// A shape just drawn is selected (issue 33, part 5), so the class keys relabel it at once: the box,
// polygon, polyline and keypoint tools select what they make; a new shape replaces the selection.
import { describe, expect, it } from 'vitest';
import { TestEditor } from './helpers';

describe('a shape just drawn is selected', () => {
  it('box, polygon, polyline and keypoint each select the shape they make', () => {
    const t = new TestEditor();
    const selected = () => [...t.editor.getView().selected];
    t.editor.setActiveClass('thing');
    t.editor.setTool('box');
    t.drag([10, 10], [200, 200]);
    expect(selected()).toEqual(['id1']);
    t.editor.setTool('polygon');
    t.clickAll([[300, 300], [400, 300], [400, 400]]);
    t.key('Enter');
    expect(selected()).toEqual(['id2']);
    t.editor.setTool('polyline');
    t.clickAll([[500, 500], [600, 550]]);
    t.key('Enter');
    expect(selected()).toEqual(['id3']);
    t.editor.setTool('keypoint');
    t.click(700, 700);
    expect(selected()).toEqual(['id4']);
    expect(t.annotations.map((a) => a.type)).toEqual(['box', 'polygon', 'polyline', 'keypoint']);
  });

  it('relabelling the selection then changes the new shape only, in one undo step', () => {
    const t = new TestEditor();
    t.editor.setActiveClass('car');
    t.editor.setTool('box');
    t.drag([10, 10], [200, 200]);
    t.drag([300, 300], [500, 500]);
    t.editor.setSelectedClass('truck');
    expect(t.annotations.map((a) => a.class)).toEqual(['car', 'truck']);
    t.editor.undo();
    expect(t.annotations.map((a) => a.class)).toEqual(['car', 'car']);
  });

  it('a box too small selects nothing and keeps the selection', () => {
    const t = new TestEditor();
    t.editor.setActiveClass('car');
    t.editor.setTool('box');
    t.drag([10, 10], [200, 200]);
    t.drag([300, 300], [303, 303]);
    expect([...t.editor.getView().selected]).toEqual(['id1']);
  });
});
