// The brush, the eraser and the mask commands (issue 33), headless: strokes through the Editor's
// pointer input with the real wasm kernels plugged in, pixels checked against the per-pixel
// reference (assembly/reference/brush.ts).
import { beforeAll, describe, expect, it } from 'vitest';
import { paintStrokeRef, fillHolesRef } from '../../assembly/reference/brush';
import { kernels } from '../../assembly/test/helpers';
import { rle, type EditorAnnotation, type SegmentationAnnotation } from '../../src/engine';
import type { Kernels } from '../../src/kernels/node';
import { TestEditor, polygon } from './helpers';

let k: Kernels;
beforeAll(async () => {
  k = await kernels();
});

const W = 200, H = 150;

function brushEditor(scale = 2): TestEditor {
  const t = new TestEditor({ image: { width: W, height: H } });
  t.editor.masks.setOps(k);
  t.editor.setCamera({ x: 0, y: 0, scale });
  t.editor.setActiveClass('dog');
  return t;
}

function maskOf(a: EditorAnnotation | undefined): SegmentationAnnotation {
  if (a?.type !== 'segmentation') throw new Error(`not a mask: ${JSON.stringify(a)}`);
  return a;
}

const pixels = (a: SegmentationAnnotation) => rle.decodeRle(a.rle);
const area = (a: SegmentationAnnotation) => rle.rleArea(a.rle);

function sameMask(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => (v !== 0) === (b[i] !== 0));
}

describe('brush', () => {
  it('paints a new mask of the active class along the stroke, with a radius of half the size in screen pixels', () => {
    const t = brushEditor(2);
    t.editor.setTool('brush');
    t.down(20, 30).move(40, 30).move(60, 50).up(60, 50);
    const m = maskOf(t.only());
    expect(m.class).toBe('dog');
    // size 24 screen px at zoom 2: radius 6 image px
    const want = paintStrokeRef(new Uint8Array(W * H), H, W, [[20, 30], [20, 30], [40, 30], [60, 50]], 6, false);
    expect(sameMask(pixels(m), want)).toBe(true);
    expect({ x: m.x, y: m.y, width: m.width, height: m.height }).toEqual(rle.rleBBox(m.rle));
    expect(t.selected).toEqual([m.id]); // just drawn: selected, so the next stroke adds to it
    expect(t.events).toContainEqual({ type: 'created', id: m.id });
  });

  it('the same stroke on screen covers half the image pixels across at twice the zoom', () => {
    const a = brushEditor(1), b = brushEditor(2);
    for (const t of [a, b]) {
      t.editor.setTool('brush');
      t.down(100, 75).up(100, 75);
    }
    const ra = area(maskOf(a.only())), rb = area(maskOf(b.only()));
    expect(ra).toBeGreaterThan(3.5 * rb);
    expect(ra).toBeLessThan(4.5 * rb);
  });

  it('each stroke is one undo step; redo brings it back', () => {
    const t = brushEditor();
    t.editor.setTool('brush');
    t.drag([20, 20], [80, 20], {}, 10);
    const first = maskOf(t.only());
    t.drag([20, 60], [80, 60], {}, 10);
    const second = maskOf(t.only());
    expect(second.id).toBe(first.id);
    expect(area(second)).toBeGreaterThan(area(first));
    expect(t.editor.undo()).toBe(true);
    expect(area(maskOf(t.only()))).toBe(area(first));
    expect(t.editor.undo()).toBe(true);
    expect(t.annotations).toHaveLength(0);
    expect(t.editor.redo()).toBe(true);
    expect(t.editor.redo()).toBe(true);
    expect(area(maskOf(t.only()))).toBe(area(second));
  });

  it('the eraser and the brush with Shift remove pixels; a mask erased to nothing is deleted', () => {
    const t = brushEditor();
    t.editor.setTool('brush');
    t.drag([20, 40], [120, 40], {}, 10);
    const full = maskOf(t.only());
    t.drag([70, 20], [70, 60], { shiftKey: true }, 4);
    const cut = maskOf(t.only());
    const want = paintStrokeRef(pixels(full), H, W, [[70, 20], [70, 20], [70, 30], [70, 40], [70, 50], [70, 60]], 6, true);
    expect(sameMask(pixels(cut), want)).toBe(true);
    t.editor.setTool('eraser');
    t.editor.clearSelection(); // the eraser takes the mask under the pointer
    t.down(40, 40).up(40, 40);
    expect(area(maskOf(t.only()))).toBeLessThan(area(cut));
    t.editor.select([cut.id]);
    t.key(']');
    t.key(']');
    t.key(']');
    t.key(']');
    t.key(']');
    t.key(']');
    t.drag([10, 40], [130, 40], {}, 12);
    expect(t.annotations).toHaveLength(0);
    t.editor.undo();
    expect(t.annotations).toHaveLength(1);
  });

  it('[ and ] change the size shown at the pointer; the size is shared by the brush and the eraser', () => {
    const t = brushEditor(2);
    t.editor.setTool('brush');
    t.move(50, 50);
    const before = t.editor.getView().drawing;
    expect(before).toMatchObject({ kind: 'brush', cursor: [50, 50], size: 24, radius: 6, erase: false });
    expect(t.key(']')).toBe(true);
    expect(t.editor.getView().drawing).toMatchObject({ kind: 'brush', size: 30, radius: 7.5 });
    t.editor.setTool('eraser');
    t.move(50, 50);
    expect(t.editor.getView().drawing).toMatchObject({ kind: 'brush', size: 30, erase: true });
    t.key('[');
    t.key('[');
    expect(t.editor.getView().drawing).toMatchObject({ size: 19 });
  });

  it('without a class, a stroke asks for one and paints nothing; without kernels it does nothing', () => {
    const t = brushEditor();
    t.editor.setActiveClass(null);
    t.editor.setTool('brush');
    t.drag([20, 20], [60, 20]);
    expect(t.annotations).toHaveLength(0);
    expect(t.events).toContainEqual({ type: 'needs-class', tool: 'brush' });
    const u = brushEditor();
    u.editor.masks.setOps(null);
    u.editor.setTool('brush');
    u.drag([20, 20], [60, 20]);
    expect(u.annotations).toHaveLength(0);
    expect(u.editor.canUndo()).toBe(false);
  });

  it('Escape during a stroke takes it back', () => {
    const t = brushEditor();
    t.editor.setTool('brush');
    t.down(20, 20).move(60, 20);
    expect(t.annotations).toHaveLength(1); // drawn as the stroke goes
    t.key('Escape');
    t.up(60, 20);
    expect(t.annotations).toHaveLength(0);
    expect(t.editor.canUndo()).toBe(false);
  });

  it('a mask stored with compressed counts stays compressed after a stroke', () => {
    const t = brushEditor();
    const mask = new Uint8Array(W * H);
    for (let x = 10; x < 30; x++) for (let y = 10; y < 30; y++) mask[x * H + y] = 1;
    const counts = rle.countsToString(rle.encodeMask(mask, H, W));
    t.editor.load([{ id: 'm', type: 'segmentation', class: 'cat', rle: { size: [H, W], counts }, x: 10, y: 10, width: 20, height: 20, attributes: [] }]);
    t.editor.select(['m']);
    t.editor.setTool('brush');
    t.drag([30, 20], [50, 20]);
    const m = maskOf(t.only());
    expect(typeof m.rle.counts).toBe('string');
    expect(m.class).toBe('cat'); // the selected mask keeps its class
    expect(area(m)).toBeGreaterThan(400);
  });
});

describe('mask commands', () => {
  function ringMask(t: TestEditor): SegmentationAnnotation {
    const mask = new Uint8Array(W * H);
    for (let x = 20; x < 60; x++) for (let y = 20; y < 60; y++) if (x < 25 || x >= 55 || y < 25 || y >= 55) mask[x * H + y] = 1;
    mask[100 * H + 100] = 1; // a one-pixel island
    const a: SegmentationAnnotation = { id: 'ring', type: 'segmentation', class: 'dog', rle: { size: [H, W], counts: rle.encodeMask(mask, H, W) }, x: 20, y: 20, width: 81, height: 81, attributes: ['big'] };
    t.editor.load([a]);
    t.editor.select(['ring']);
    return a;
  }

  it('Fill holes fills the ring, one undo step', () => {
    const t = brushEditor();
    const a = ringMask(t);
    expect(t.editor.masks.run({ kind: 'fill-holes' })).toEqual(['ring']);
    expect(sameMask(pixels(maskOf(t.only())), fillHolesRef(pixels(a), H, W))).toBe(true);
    expect(area(maskOf(t.only()))).toBe(40 * 40 + 1);
    t.editor.undo();
    expect(area(maskOf(t.only()))).toBe(area(a));
  });

  it('Remove islands smaller than N px removes the stray pixel and keeps the ring', () => {
    const t = brushEditor();
    const a = ringMask(t);
    t.editor.masks.run({ kind: 'remove-islands', minArea: 10 });
    const m = maskOf(t.only());
    expect(area(m)).toBe(area(a) - 1);
    expect({ x: m.x, y: m.y, width: m.width, height: m.height }).toEqual({ x: 20, y: 20, width: 40, height: 40 });
    t.editor.masks.run({ kind: 'remove-islands', minArea: 100000 });
    expect(t.annotations).toHaveLength(0); // nothing left: the mask goes
    t.editor.undo();
    expect(area(maskOf(t.only()))).toBe(area(a) - 1);
  });

  it('Convert to polygons traces the mask with holes at the tolerance given; Convert to mask gives the pixels back', () => {
    const t = brushEditor();
    const a = ringMask(t);
    t.editor.masks.run({ kind: 'remove-islands', minArea: 2 });
    const made = t.editor.masks.run({ kind: 'to-polygons', tolerance: 1 });
    expect(made).toHaveLength(1);
    const p = t.only();
    expect(p).toMatchObject({ type: 'polygon', class: 'dog', attributes: ['big'] });
    if (p.type !== 'polygon') throw new Error('not a polygon');
    expect(p.holes).toHaveLength(1);
    expect(t.selected).toEqual(made);
    t.editor.masks.run({ kind: 'to-mask' });
    const back = maskOf(t.only());
    expect(area(back)).toBe(area(a) - 1); // a square ring's corners are real corners: exact
    expect(back.attributes).toEqual(['big']);
    t.editor.undo();
    expect(t.only().type).toBe('polygon');
    t.editor.undo();
    expect(t.only().type).toBe('segmentation');
  });

  it('runs on every selected shape it fits, as one undo step; a read-only editor refuses', () => {
    const t = brushEditor();
    const a = ringMask(t);
    t.editor.load([a, { ...a, id: 'ring2' }, polygon('p', [[120, 10], [180, 10], [180, 60]])]);
    t.editor.selectAll();
    expect(t.editor.masks.run({ kind: 'fill-holes' }).sort()).toEqual(['ring', 'ring2']);
    expect(t.annotations.filter((x) => x.type === 'segmentation').map((x) => area(maskOf(x)))).toEqual([40 * 40 + 1, 40 * 40 + 1]);
    t.editor.undo();
    expect(t.annotations.filter((x) => x.type === 'segmentation').map((x) => area(maskOf(x)))).toEqual([area(a), area(a)]);
    t.editor.setReadOnly(true);
    expect(() => t.editor.masks.run({ kind: 'fill-holes' }, ['ring'])).toThrow(/read-only/);
    t.editor.setTool('brush');
    t.drag([100, 120], [150, 120]);
    expect(t.annotations).toHaveLength(3);
  });

  it('applies only to the shapes it fits: masks for the mask commands, polygons for Convert to mask', () => {
    const t = brushEditor();
    t.editor.load([polygon('p', [[10, 10], [50, 10], [50, 50]])]);
    t.editor.select(['p']);
    expect(t.editor.masks.run({ kind: 'fill-holes' })).toEqual([]);
    expect(t.editor.canUndo()).toBe(false);
    expect(t.editor.masks.run({ kind: 'to-mask' })).toHaveLength(1);
    expect(t.only().type).toBe('segmentation');
  });
});
