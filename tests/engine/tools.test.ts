import { describe, expect, it } from 'vitest';
import { Editor, editorToStored } from '../../src/engine';
import { encodeMask } from '../../src/engine/model/rle';
import { box, keypoint, polygon, polyline, TestEditor } from './helpers';

function drawing(tool: 'box' | 'polygon' | 'polyline' | 'keypoint', cls: string | null = 'car') {
  const t = new TestEditor();
  t.editor.setTool(tool);
  t.editor.setActiveClass(cls);
  return t;
}

describe('box tool', () => {
  it('draws a box by dragging', () => {
    const t = drawing('box');
    t.drag([100, 100], [180, 150]);
    expect(t.only()).toEqual({ id: 'id1', type: 'box', class: 'car', x: 100, y: 100, width: 80, height: 50, attributes: [] });
    expect(t.editor.getUndoLabels()).toEqual(['Create box']);
    expect(t.editor.getView().drawing).toBeNull();
  });

  it('normalises a drag towards the top-left', () => {
    const t = drawing('box');
    t.drag([180, 150], [100, 100]);
    expect(t.only()).toMatchObject({ x: 100, y: 100, width: 80, height: 50 });
  });

  it('switches to click mode when the press moves 10 px or less: the next click sets the corner', () => {
    const t = drawing('box');
    t.down(100, 100).move(105, 105).up(105, 105);
    expect(t.annotations).toHaveLength(0);
    t.move(150, 160);
    expect(t.editor.getView().drawing).toEqual({ kind: 'box', rect: { x: 100, y: 100, width: 50, height: 60 } });
    t.click(200, 220);
    expect(t.only()).toMatchObject({ x: 100, y: 100, width: 100, height: 120 });
  });

  it('discards boxes under 10 x 10 image pixels', () => {
    const t = drawing('box');
    t.drag([100, 100], [130, 109]); // 30 x 9
    expect(t.annotations).toHaveLength(0);
    expect(t.events).toContainEqual({ type: 'too-small', tool: 'box' });
    t.drag([100, 100], [110, 110]); // exactly 10 x 10 is allowed
    expect(t.annotations).toHaveLength(1);
  });

  it('measures the minimum in image pixels, not screen pixels', () => {
    const t = drawing('box');
    t.editor.setCamera({ x: 0, y: 0, scale: 4 });
    t.drag([100, 100], [108, 130]); // 32 screen px wide, 8 image px
    expect(t.annotations).toHaveLength(0);
  });

  it('clamps the box to the image', () => {
    const t = drawing('box');
    t.drag([1950, 1450], [2100, 1600]);
    expect(t.only()).toMatchObject({ x: 1950, y: 1450, width: 50, height: 50 });
  });

  it('refuses to start without an active class and asks for one', () => {
    const t = drawing('box', null);
    t.drag([100, 100], [200, 200]);
    expect(t.annotations).toHaveLength(0);
    expect(t.events).toEqual([{ type: 'needs-class', tool: 'box' }]);
  });

  it('Escape cancels a box in click mode', () => {
    const t = drawing('box');
    t.click(100, 100);
    expect(t.key('Escape')).toBe(true);
    t.click(200, 200);
    // The second click starts a new box instead of finishing the cancelled one.
    expect(t.annotations).toHaveLength(0);
    expect(t.editor.getView().drawing).not.toBeNull();
  });
});

describe('polygon tool', () => {
  it('draws a polygon closed by clicking near the first point', () => {
    const t = drawing('polygon', 'roof');
    t.clickAll([[10, 10], [100, 10], [100, 100]]);
    expect(t.editor.getView().drawing).toMatchObject({ kind: 'polygon', points: [[10, 10], [100, 10], [100, 100]] });
    t.click(13, 12); // within 10 screen px of the first point
    expect(t.only()).toEqual({ id: 'id1', type: 'polygon', class: 'roof', points: [[10, 10], [100, 10], [100, 100]], holes: [], attributes: [] });
    expect(t.editor.getView().drawing).toBeNull();
  });

  it('needs at least 3 points: clicking the first point with 2 points does not close', () => {
    const t = drawing('polygon');
    t.clickAll([[10, 10], [100, 10], [12, 11]]);
    expect(t.annotations).toHaveLength(0);
    expect(t.key('Enter')).toBe(true);
    expect(t.annotations).toHaveLength(1);
  });

  it('Enter closes with 3+ points and does nothing with fewer', () => {
    const t = drawing('polygon');
    t.clickAll([[10, 10], [100, 10]]);
    t.key('Enter');
    expect(t.annotations).toHaveLength(0);
    t.click(50, 80);
    t.key('Enter');
    expect(t.only()).toMatchObject({ points: [[10, 10], [100, 10], [50, 80]] });
  });

  it('Backspace removes the last point, Escape cancels', () => {
    const t = drawing('polygon');
    t.clickAll([[10, 10], [100, 10], [100, 100], [300, 300]]);
    t.key('Backspace');
    t.key('Enter');
    expect(t.only()).toMatchObject({ points: [[10, 10], [100, 10], [100, 100]] });
    t.clickAll([[500, 500], [600, 500], [600, 600]]);
    t.key('Escape');
    expect(t.annotations).toHaveLength(1);
    expect(t.editor.getView().drawing).toBeNull();
  });

  it('switching tools clears the drawing in progress', () => {
    const t = drawing('polygon');
    t.clickAll([[10, 10], [100, 10], [100, 100]]);
    t.editor.setTool('select');
    t.editor.setTool('polygon');
    expect(t.editor.getView().drawing).toBeNull();
    t.click(10, 10);
    expect(t.annotations).toHaveLength(0);
    expect((t.editor.getView().drawing as unknown as { points: unknown[] }).points).toHaveLength(1);
  });

  it('Shift-drawing inside a polygon cuts a hole into it', () => {
    const t = drawing('polygon');
    t.editor.load([polygon('p', [[0, 0], [200, 0], [200, 200], [0, 200]])]);
    t.editor.select(['p']);
    t.click(50, 50, { shiftKey: true });
    t.clickAll([[150, 50], [150, 150], [50, 150]]);
    t.key('Enter');
    expect(t.only()).toMatchObject({ id: 'p', holes: [[[50, 50], [150, 50], [150, 150], [50, 150]]] });
    expect(t.editor.getUndoLabels()).toEqual(['Cut hole']);
    // The hole is not part of the shape any more.
    expect(t.editor.hitTest(100, 100)).toBeNull();
    expect(t.editor.hitTest(20, 20)).toBe('p');
  });

  it('a cut across the border subtracts from the outline', () => {
    const t = drawing('polygon');
    t.editor.load([polygon('p', [[0, 0], [200, 0], [200, 200], [0, 200]])]);
    t.click(150, 50, { shiftKey: true });
    t.clickAll([[300, 50], [300, 150], [150, 150]]);
    t.key('Enter');
    const p = t.only();
    expect(t.editor.hitTest(175, 100)).toBeNull();
    expect(t.editor.hitTest(100, 100)).toBe('p');
    expect(p.type === 'polygon' && p.holes).toEqual([]);
  });
});

describe('polyline tool', () => {
  it('finishes on Enter with at least 2 points', () => {
    const t = drawing('polyline', 'lane');
    t.click(10, 10);
    t.key('Enter');
    expect(t.annotations).toHaveLength(0);
    t.click(50, 60);
    t.key('Enter');
    expect(t.only()).toEqual({ id: 'id1', type: 'polyline', class: 'lane', points: [[10, 10], [50, 60]], attributes: [] });
  });

  it('finishes on double-click without a duplicate end point', () => {
    const t = drawing('polyline');
    t.clickAll([[10, 10], [50, 60]]);
    t.dblclick(90, 20);
    expect(t.only()).toMatchObject({ points: [[10, 10], [50, 60], [90, 20]] });
  });

  it('a double-click with a single point does not create a line', () => {
    const t = drawing('polyline');
    t.dblclick(10, 10);
    expect(t.annotations).toHaveLength(0);
  });
});

describe('keypoint tool', () => {
  it('places a keypoint per click', () => {
    const t = drawing('keypoint', 'eye');
    t.click(10, 20).click(30.5, 40.25);
    expect(t.annotations).toEqual([
      { id: 'id1', type: 'keypoint', class: 'eye', x: 10, y: 20, attributes: [] },
      { id: 'id2', type: 'keypoint', class: 'eye', x: 30.5, y: 40.25, attributes: [] },
    ]);
  });

  it('asks for a class when none is active', () => {
    const t = drawing('keypoint', null);
    t.click(10, 20);
    expect(t.annotations).toEqual([]);
    expect(t.events).toEqual([{ type: 'needs-class', tool: 'keypoint' }]);
  });
});

describe('select tool', () => {
  function scene() {
    const t = new TestEditor();
    t.editor.load([
      box('a', 100, 100, 100, 100),
      box('b', 150, 150, 100, 100), // overlaps a, on top
      box('c', 500, 500, 50, 50),
      polygon('p', [[700, 100], [900, 100], [900, 300], [700, 300]]),
      polyline('l', [[100, 700], [300, 700], [300, 900]]),
      keypoint('k', 1000, 1000),
    ]);
    return t;
  }

  it('click selects the topmost shape; click on empty space clears', () => {
    const t = scene();
    t.click(170, 170);
    expect(t.selected).toEqual(['b']);
    t.click(120, 120);
    expect(t.selected).toEqual(['a']);
    t.click(1500, 100);
    expect(t.selected).toEqual([]);
  });

  it('shift-click toggles shapes in and out of the selection', () => {
    const t = scene();
    t.click(520, 520);
    t.click(800, 200, { shiftKey: true });
    expect(t.selected).toEqual(['c', 'p']);
    t.click(520, 520, { shiftKey: true });
    expect(t.selected).toEqual(['p']);
  });

  it('marquee selects shapes fully inside it; shift adds to the selection', () => {
    const t = scene();
    t.drag([50, 50], [260, 260]);
    expect(t.selected).toEqual(['a', 'b']);
    expect(t.editor.getView().marquee).toBeNull();
    t.drag([450, 450], [1100, 1100], { shiftKey: true });
    expect(t.selected).toEqual(['a', 'b', 'c', 'k']);
    t.drag([50, 50], [220, 220]); // only a fits entirely
    expect(t.selected).toEqual(['a']);
  });

  it('drags the shape under the pointer, selecting it first', () => {
    const t = scene();
    t.drag([520, 520], [620, 540]);
    expect(t.editor.getAnnotation('c')).toMatchObject({ x: 600, y: 520 });
    expect(t.selected).toEqual(['c']);
    expect(t.editor.getUndoLabels()).toEqual(['Move 1 annotation(s)']);
  });

  it('drags a mask on whole pixels without rounding drift', () => {
    const t = new TestEditor();
    const h = 100, w = 100;
    const mask = new Uint8Array(h * w);
    for (let x = 10; x < 20; x++) for (let y = 10; y < 20; y++) mask[x * h + y] = 1;
    t.editor.load([{ id: 'm', type: 'segmentation', class: 'cat', rle: { size: [h, w], counts: encodeMask(mask, h, w) }, x: 10, y: 10, width: 10, height: 10 }]);
    // 7 steps of 1.4857 px: rounding each step would add up to 7, the total rounds to 10.
    t.drag([15, 15], [25.4, 15], {}, 7);
    expect(t.editor.getAnnotation('m')).toMatchObject({ x: 20, y: 10, width: 10, height: 10 });
    expect(t.editor.hitTest(29.5, 15, 0)).toBe('m');
    expect(t.editor.hitTest(15, 15, 0)).toBeNull();
    expect(t.editor.getUndoLabels()).toEqual(['Move 1 annotation(s)']);
  });

  it('a mask dragged past the image border and back keeps all its pixels', () => {
    const t = new TestEditor({ image: { width: 100, height: 100 } });
    const h = 100, w = 100;
    const mask = new Uint8Array(h * w);
    for (let x = 10; x < 20; x++) for (let y = 10; y < 20; y++) mask[x * h + y] = 1;
    const rle = { size: [h, w] as [number, number], counts: encodeMask(mask, h, w) };
    t.editor.load([{ id: 'm', type: 'segmentation', class: 'cat', rle, x: 10, y: 10, width: 10, height: 10 }]);
    t.down(15, 15).move(40, 15).move(100, 15).move(30, 15).move(15, 15).up(15, 15);
    expect(t.editor.getAnnotation('m')).toMatchObject({ rle, x: 10, y: 10, width: 10, height: 10 });
  });

  it('a click without moving records no history', () => {
    const t = scene();
    t.click(520, 520);
    t.down(520, 520).move(521, 521).up(521, 521); // below the drag threshold
    expect(t.editor.canUndo()).toBe(false);
  });

  it('moves a polygon vertex by dragging it', () => {
    const t = scene();
    t.click(800, 200);
    t.drag([900, 100], [950, 80]);
    expect(t.editor.getAnnotation('p')).toMatchObject({ points: [[700, 100], [950, 80], [900, 300], [700, 300]] });
    expect(t.editor.getUndoLabels()).toEqual(['Move point']);
  });

  it('inserts a vertex by dragging an edge midpoint (one "Insert point" entry)', () => {
    const t = scene();
    t.click(800, 200);
    t.drag([800, 100], [800, 60]);
    expect(t.editor.getAnnotation('p')).toMatchObject({ points: [[700, 100], [800, 60], [900, 100], [900, 300], [700, 300]] });
    expect(t.editor.getUndoLabels()).toEqual(['Insert point']);
    t.editor.undo();
    expect(t.editor.getAnnotation('p')).toMatchObject({ points: [[700, 100], [900, 100], [900, 300], [700, 300]] });
  });

  it('alt-click on an edge inserts a vertex there', () => {
    const t = scene();
    t.click(200, 700); // select the polyline
    t.click(300, 760, { altKey: true });
    expect(t.editor.getAnnotation('l')).toMatchObject({ points: [[100, 700], [300, 700], [300, 760], [300, 900]] });
  });

  it('deletes a vertex by alt-click, or by picking it and pressing Delete', () => {
    const t = scene();
    t.click(800, 200);
    t.click(900, 300, { altKey: true });
    expect(t.editor.getAnnotation('p')).toMatchObject({ points: [[700, 100], [900, 100], [700, 300]] });
    // Now a triangle: no more deletions below 3 points.
    t.click(900, 100, { altKey: true });
    expect(t.editor.getAnnotation('p')).toMatchObject({ points: [[700, 100], [900, 100], [700, 300]] });
    t.click(200, 700);
    t.click(300, 900);
    expect(t.editor.getView().selectedVertex).toEqual({ id: 'l', ring: 0, index: 2 });
    expect(t.key('Delete')).toBe(true);
    expect(t.editor.getAnnotation('l')).toMatchObject({ points: [[100, 700], [300, 700]] });
    expect(t.editor.getAnnotation('l')).toBeDefined();
  });

  it('resizes a box by a corner handle and an edge handle, as single entries', () => {
    const t = scene();
    t.click(520, 520);
    t.drag([550, 550], [600, 580]); // bottom-right corner
    expect(t.editor.getAnnotation('c')).toMatchObject({ x: 500, y: 500, width: 100, height: 80 });
    t.drag([500, 540], [450, 540]); // west edge midpoint
    expect(t.editor.getAnnotation('c')).toMatchObject({ x: 450, y: 500, width: 150, height: 80 });
    expect(t.editor.getUndoLabels()).toEqual(['Resize box', 'Resize box']);
  });

  it('resizing keeps the 10 x 10 minimum and flips past the opposite side', () => {
    const t = scene();
    t.click(520, 520);
    t.drag([550, 550], [503, 503]);
    expect(t.editor.getAnnotation('c')).toMatchObject({ x: 500, y: 500, width: 10, height: 10 });
    t.drag([510, 510], [450, 470]);
    expect(t.editor.getAnnotation('c')).toMatchObject({ x: 450, y: 470, width: 50, height: 30 });
  });

  it('hidden shapes are not hit and cannot be selected by marquee', () => {
    const t = scene();
    t.editor.hide(['b']);
    t.click(170, 170);
    expect(t.selected).toEqual(['a']);
    t.drag([50, 50], [260, 260]);
    expect(t.selected).toEqual(['a']);
    t.editor.show(['b']);
    t.click(170, 170);
    expect(t.selected).toEqual(['b']);
  });

  it('Delete removes the selection as one entry; arrows nudge by 1 px and Shift+arrows by 10 px', () => {
    const t = scene();
    t.editor.select(['a', 'c']);
    t.key('ArrowRight');
    t.key('ArrowDown', { shiftKey: true });
    expect(t.editor.getAnnotation('a')).toMatchObject({ x: 101, y: 110 });
    expect(t.editor.getAnnotation('c')).toMatchObject({ x: 501, y: 510 });
    expect(t.key('Backspace')).toBe(true);
    expect(t.annotations.map((a) => a.id)).toEqual(['b', 'p', 'l', 'k']);
    expect(t.editor.getUndoLabels()).toEqual(['Move 2 annotation(s)', 'Move 2 annotation(s)', 'Delete 2 annotation(s)']);
    expect(t.selected).toEqual([]);
  });

  it('hover follows the topmost shape under the pointer', () => {
    const t = scene();
    t.move(170, 170);
    expect(t.editor.getView().hovered).toBe('b');
    t.move(1500, 50);
    expect(t.editor.getView().hovered).toBeNull();
  });
});

describe('editor facade', () => {
  it('copy and paste with a 20 px offset, cascading on repeated paste', () => {
    const t = new TestEditor();
    t.editor.load([box('a', 100, 100, 50, 50), keypoint('k', 10, 10)]);
    t.editor.select(['a']);
    const copied = t.editor.copy();
    expect(JSON.parse(JSON.stringify(copied))).toEqual([box('a', 100, 100, 50, 50)]);
    const first = t.editor.paste();
    const second = t.editor.paste();
    expect(t.editor.getAnnotation(first[0]!)).toMatchObject({ x: 120, y: 120, class: 'car' });
    expect(t.editor.getAnnotation(second[0]!)).toMatchObject({ x: 140, y: 140 });
    expect(t.selected).toEqual([second[0]]);
    expect(t.editor.getUndoLabels()).toEqual(['Paste 1 annotation(s)', 'Paste 1 annotation(s)']);
    expect(t.events.filter((e) => e.type === 'pasted')).toHaveLength(2);
  });

  it('pastes shapes given by the SPA (e.g. Copy Previous) with fresh ids', () => {
    const t = new TestEditor();
    t.editor.load([box('a', 0, 0, 20, 20)]);
    const ids = t.editor.paste([box('a', 0, 0, 20, 20)], 0);
    expect(ids).toEqual(['id1']);
    expect(t.annotations.map((a) => a.id)).toEqual(['a', 'id1']);
  });

  it('selectAll skips hidden shapes; toggleAll hides and shows everything', () => {
    const t = new TestEditor();
    t.editor.load([box('a', 0, 0, 20, 20), box('b', 50, 0, 20, 20)]);
    t.editor.hide(['b']);
    t.editor.selectAll();
    expect(t.selected).toEqual(['a']);
    t.editor.toggleAll();
    expect(t.editor.allHidden()).toBe(true);
    expect(t.selected).toEqual([]);
    t.editor.toggleAll();
    expect(t.editor.getView().hidden.size).toBe(0);
  });

  it('transparency is clamped to 0-100', () => {
    const t = new TestEditor();
    t.editor.setTransparency(150);
    expect(t.editor.getView().transparency).toBe(100);
    t.editor.setTransparency(-5);
    expect(t.editor.getView().transparency).toBe(0);
  });

  it('undo abandons a drawing in progress first', () => {
    const t = drawing('polygon');
    t.editor.load([keypoint('k', 5, 5)]);
    t.editor.execute('move', { ids: ['k'], dx: 1, dy: 0 });
    t.clickAll([[10, 10], [100, 10]]);
    t.editor.undo();
    expect(t.editor.getView().drawing).toBeNull();
    expect(t.editor.getAnnotation('k')).toMatchObject({ x: 5 });
  });

  it('stored round trip through the facade', () => {
    const t = new TestEditor();
    const stored = [
      { id: 'x', name: 'car', bounding_box: { x: 1, y: 2, w: 30, h: 40 }, attributes: [] },
      { id: 'y', name: 'lane', bounding_box: { x: 0, y: 0, w: 10, h: 10 }, polyline: { path: [[0, 0], [10, 10]] }, attributes: [] },
    ];
    t.editor.loadStored(stored);
    expect(t.editor.getAnnotations().map(editorToStored)).toEqual(stored);
    expect(() => t.editor.loadStored([{ id: 'z', name: 'c', bounding_box: { x: 0, y: 0, w: 1, h: 1 }, polyline: { path: [[0, 0]] } }])).toThrow();
  });
});

describe('polygon double-click', () => {
  it('closes the polygon on double-click with 3+ points', () => {
    const t = drawing('polygon');
    t.clickAll([[10, 10], [100, 10]]);
    t.dblclick(100, 100);
    expect(t.only()).toMatchObject({ points: [[10, 10], [100, 10], [100, 100]] });
  });
});

describe('class handling', () => {
  for (const tool of ['polygon', 'polyline'] as const) {
    it(`${tool} asks for a class and draws nothing without one`, () => {
      const t = drawing(tool, null);
      t.clickAll([[10, 10], [100, 10], [100, 100]]);
      t.key('Enter');
      expect(t.annotations).toEqual([]);
      expect(t.events.every((e) => e.type === 'needs-class' && e.tool === tool)).toBe(true);
      expect(t.events.length).toBeGreaterThan(0);
      expect(t.editor.getView().drawing).toBeNull();
    });
  }

  it('new shapes take the active class at the time they are made', () => {
    const t = drawing('keypoint', 'eye');
    t.click(1, 1);
    t.editor.setActiveClass('nose');
    t.click(2, 2);
    expect(t.annotations.map((a) => a.class)).toEqual(['eye', 'nose']);
  });

  it('setSelectedClass re-classes the selection as one entry', () => {
    const t = new TestEditor();
    t.editor.load([box('a', 0, 0, 20, 20), box('b', 50, 0, 20, 20), box('c', 100, 0, 20, 20)]);
    t.editor.select(['a', 'c']);
    t.editor.setSelectedClass('truck');
    expect(t.annotations.map((a) => a.class)).toEqual(['truck', 'car', 'truck']);
    expect(t.editor.getUndoLabels()).toEqual(['Set class of 2 annotation(s)']);
  });
});

describe('view notifications', () => {
  it('tells subscribers about view changes with a new snapshot each time', () => {
    const t = new TestEditor();
    t.editor.load([box('a', 0, 0, 20, 20)]);
    const snapshots: unknown[] = [];
    t.editor.subscribe((c) => c.view && snapshots.push(t.editor.getView()));
    const v0 = t.editor.getView();
    t.editor.select(['a']);
    t.editor.setTool('box');
    t.editor.setActiveClass('car');
    t.editor.setTransparency(70);
    t.editor.select(['a']); // no change: no notification
    expect(snapshots).toHaveLength(4);
    expect(new Set(snapshots).size).toBe(4);
    expect(snapshots).not.toContain(v0);
    expect(t.editor.getView()).toMatchObject({ tool: 'box', activeClass: 'car', transparency: 70 });
  });

  it('deleting a selected shape drops it from the selection', () => {
    const t = new TestEditor();
    t.editor.load([box('a', 0, 0, 20, 20), box('b', 50, 0, 20, 20)]);
    t.editor.select(['a', 'b']);
    t.editor.execute('delete', { ids: ['a'] });
    expect(t.selected).toEqual(['b']);
  });
});

describe('default ids', () => {
  it('new shapes get UUIDs without an id generator', () => {
    const e = new Editor({ image: { width: 100, height: 100 } });
    e.setTool('keypoint');
    e.setActiveClass('eye');
    e.pointerDown({ x: 10, y: 10 });
    e.pointerDown({ x: 20, y: 20 });
    const ids = e.getOrderedIds();
    expect(ids).toHaveLength(2);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(ids[0]).not.toBe(ids[1]);
  });
});
