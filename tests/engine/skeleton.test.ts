// The skeleton tool (issue 33 §4): a skeleton class's points placed in order as one instance,
// with a point skipped (v 0) or occluded (v 1), the next name shown at the pointer, one undo step
// per instance and per drag of one point, and the stored form the server takes.
import { describe, expect, it } from 'vitest';
import { editorToStored, SKELETON_OCCLUDE_KEY, SKELETON_SKIP_KEY, type SkeletonAnnotation } from '../../src/engine';
import { TestEditor } from './helpers';

const PERSON = { points: ['nose', 'left_eye', 'right_eye', 'neck'], edges: [[0, 1], [0, 2], [0, 3]] as [number, number][] };

function skeletonEditor(): TestEditor {
  const t = new TestEditor();
  t.editor.skeletons.set(new Map([['person', PERSON]]));
  t.editor.setActiveClass('person');
  t.editor.setTool('skeleton');
  return t;
}

const points = (t: TestEditor) => (t.only() as SkeletonAnnotation).keypoints;
const next = (t: TestEditor) => {
  const d = t.editor.getView().drawing;
  return d?.kind === 'skeleton' ? `${d.names[d.next]}${d.occluded ? ' (occluded)' : ''}` : null;
};

describe('the skeleton tool', () => {
  it('places the points in the class order, skips one and occludes one, and names the next point at the pointer', () => {
    const t = skeletonEditor();
    t.move(90, 90);
    expect(next(t)).toBe('nose');
    t.click(100, 100);
    expect(next(t)).toBe('left_eye');
    expect(t.key(SKELETON_SKIP_KEY)).toBe(true);
    expect(next(t)).toBe('right_eye');
    expect(t.key(SKELETON_OCCLUDE_KEY)).toBe(true);
    expect(next(t)).toBe('right_eye (occluded)');
    t.click(130, 95);
    expect(t.editor.getView().selected.size).toBe(0); // still drawing: neck is left
    t.click(110, 160);
    expect(points(t)).toEqual([{ x: 100, y: 100, v: 2 }, { x: 0, y: 0, v: 0 }, { x: 130, y: 95, v: 1 }, { x: 110, y: 160, v: 2 }]);
    expect(t.selected).toEqual(['id1']);
    expect(t.events).toContainEqual({ type: 'created', id: 'id1' });
    expect(next(t)).toBe('nose'); // ready for the next instance
    // What the server takes: points in order, the box of the labelled ones.
    expect(editorToStored(t.only())).toMatchObject({ name: 'person', bounding_box: { x: 100, y: 95, w: 30, h: 65 }, points: points(t) });
  });

  it('undoes a whole instance in one step and redoes it; Backspace takes the last point back, Enter ends early, Escape drops it', () => {
    const t = skeletonEditor();
    t.clickAll([[100, 100], [120, 90], [80, 90], [100, 150]]);
    t.clickAll([[300, 300], [320, 290]]);
    t.key('Backspace');
    expect(next(t)).toBe('left_eye');
    t.key('Enter');
    expect(t.annotations).toHaveLength(2);
    expect((t.annotations[1] as SkeletonAnnotation).keypoints.map((p) => p.v)).toEqual([2, 0, 0, 0]);
    t.editor.undo();
    expect(t.annotations).toHaveLength(1);
    t.editor.undo();
    expect(t.annotations).toHaveLength(0);
    t.editor.redo();
    expect(points(t).map((p) => p.v)).toEqual([2, 2, 2, 2]);
    t.clickAll([[500, 500], [520, 490]]);
    expect(t.annotations).toHaveLength(2); // drawn as it grows
    t.key('Escape');
    expect(t.annotations).toHaveLength(1);
    // Every point skipped makes nothing.
    for (let i = 0; i < 4; i++) t.key(SKELETON_SKIP_KEY);
    expect(t.annotations).toHaveLength(1);
    t.editor.undo();
    expect(t.annotations).toHaveLength(0);
  });

  it('is what the keypoint tool draws while its class is a skeleton class; an instance begun keeps its class', () => {
    const t = skeletonEditor();
    t.editor.setTool('keypoint');
    t.click(100, 100);
    expect(t.only()).toMatchObject({ type: 'skeleton', keypoints: [{ x: 100, y: 100, v: 2 }, { x: 0, y: 0, v: 0 }, { x: 0, y: 0, v: 0 }, { x: 0, y: 0, v: 0 }] });
    t.editor.setActiveClass('eye');
    t.clickAll([[110, 90], [90, 90], [100, 150]]);
    expect(t.only()).toMatchObject({ type: 'skeleton', class: 'person' });
    expect(points(t).map((p) => p.v)).toEqual([2, 2, 2, 2]);
    t.click(50, 60);
    expect(t.annotations[1]).toMatchObject({ type: 'keypoint', class: 'eye', x: 50, y: 60 });
  });

  it('asks for a class when the active class is not a skeleton class', () => {
    const t = skeletonEditor();
    t.editor.setActiveClass('car');
    t.click(100, 100);
    expect(t.annotations).toHaveLength(0);
    expect(t.events).toContainEqual({ type: 'needs-class', tool: 'skeleton' });
  });
});

describe('editing a skeleton with the select tool', () => {
  it('dragging a point moves only that point, in one undo step; the skeleton is picked by the drag', () => {
    const t = skeletonEditor();
    t.clickAll([[100, 100], [120, 90], [80, 90], [100, 150]]);
    t.editor.setTool('select');
    t.editor.clearSelection();
    t.drag([120, 90], [140, 70]);
    expect(points(t)).toEqual([{ x: 100, y: 100, v: 2 }, { x: 140, y: 70, v: 2 }, { x: 80, y: 90, v: 2 }, { x: 100, y: 150, v: 2 }]);
    expect(t.selected).toEqual(['id1']);
    t.editor.undo();
    expect(points(t)[1]).toEqual({ x: 120, y: 90, v: 2 });
    // A drag inside its body (not on a point) moves the whole instance; an occluded point keeps its v.
    t.drag([100, 120], [110, 130]);
    expect(points(t)).toEqual([{ x: 110, y: 110, v: 2 }, { x: 130, y: 100, v: 2 }, { x: 90, y: 100, v: 2 }, { x: 110, y: 160, v: 2 }]);
  });

  it('a skeleton is picked by its points and edges: a click in the empty space of its box picks the shape under it (issue 33)', () => {
    const t = skeletonEditor();
    t.editor.setTool('select');
    t.editor.load([
      { id: 'car', type: 'box', class: 'car', x: 150, y: 150, width: 40, height: 40 },
      { id: 'sk', type: 'skeleton', class: 'person', keypoints: [{ x: 100, y: 100, v: 2 }, { x: 300, y: 100, v: 2 }, { x: 100, y: 300, v: 2 }, { x: 0, y: 0, v: 0 }] },
    ]);
    expect(t.editor.hitTest(170, 170)).toBe('car'); // inside the skeleton's box, off its edges
    t.click(170, 170);
    expect(t.selected).toEqual(['car']);
    expect(t.editor.hitTest(200, 100)).toBe('sk'); // on the nose-left_eye edge
    expect(t.editor.hitTest(300, 100)).toBe('sk'); // on a point
    expect(t.editor.hitTest(250, 250)).toBeNull(); // no edge there (left_eye and right_eye are not joined)
  });

  it('a relabel keeps a skeleton on skeleton classes of its size, and other shapes off skeleton classes', () => {
    const t = skeletonEditor();
    t.editor.skeletons.set(new Map([['person', PERSON], ['driver', PERSON], ['face', { points: ['nose'], edges: [] }]]));
    t.clickAll([[100, 100], [120, 90], [80, 90], [100, 150]]);
    t.editor.setTool('keypoint');
    t.editor.setActiveClass('eye');
    t.click(400, 400);
    const [skeleton, eye] = t.annotations.map((a) => a.id);
    for (const cls of ['eye', 'face']) t.editor.execute('set-class', { ids: [skeleton!], class: cls });
    t.editor.execute('set-class', { ids: [eye!], class: 'person' });
    expect(t.annotations.map((a) => a.class)).toEqual(['person', 'eye']);
    t.editor.execute('set-class', { ids: [skeleton!, eye!], class: 'driver' });
    expect(t.annotations.map((a) => a.class)).toEqual(['driver', 'eye']);
  });

  it('Delete on a picked point unlabels it (v 0); the others stay', () => {
    const t = skeletonEditor();
    t.key(SKELETON_OCCLUDE_KEY);
    t.clickAll([[100, 100], [120, 90], [80, 90], [100, 150]]);
    t.editor.setTool('select');
    t.click(80, 90);
    expect(t.key('Delete')).toBe(true);
    expect(points(t).map((p) => p.v)).toEqual([1, 2, 0, 2]);
    expect(points(t)[2]).toEqual({ x: 0, y: 0, v: 0 });
  });
});
