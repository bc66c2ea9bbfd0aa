import { describe, expect, it } from 'vitest';
import { bringIntoView, fitToScreen, imageToScreen, minScaleFor, screenToImage, visibleBounds, zoomAt } from '../../src/engine/camera';
import { box, TestEditor } from './helpers';

describe('camera', () => {
  it('converts screen <-> image both ways', () => {
    const c = { x: 30, y: -20, scale: 2.5 };
    const [ix, iy] = screenToImage(c, 130, 80);
    expect([ix, iy]).toEqual([40, 40]);
    expect(imageToScreen(c, ix, iy)).toEqual([130, 80]);
  });

  it('keeps the image point under the cursor fixed when zooming', () => {
    let c = { x: 12, y: 34, scale: 1 };
    const cursor: [number, number] = [417, 233];
    const [ix, iy] = screenToImage(c, ...cursor);
    for (const f of [1.1, 1.1, 0.9, 1.1, 0.9, 0.9, 0.9]) {
      c = zoomAt(c, cursor[0], cursor[1], f);
      const [sx, sy] = imageToScreen(c, ix, iy);
      expect(sx).toBeCloseTo(cursor[0], 9);
      expect(sy).toBeCloseTo(cursor[1], 9);
    }
  });

  it('clamps the scale to 0.1-10, still anchored at the cursor', () => {
    let c = { x: 0, y: 0, scale: 1 };
    for (let i = 0; i < 100; i++) c = zoomAt(c, 200, 100, 1.1);
    expect(c.scale).toBe(10);
    const [ix, iy] = screenToImage(c, 200, 100);
    c = zoomAt(c, 200, 100, 1.1);
    expect(c.scale).toBe(10);
    expect(screenToImage(c, 200, 100)[0]).toBeCloseTo(ix);
    expect(screenToImage(c, 200, 100)[1]).toBeCloseTo(iy);
    for (let i = 0; i < 100; i++) c = zoomAt(c, 200, 100, 0.9);
    expect(c.scale).toBe(0.1);
  });

  it('fits the image centred with a margin', () => {
    const c = fitToScreen({ width: 1000, height: 800 }, { width: 2000, height: 1000 }, 20);
    expect(c.scale).toBeCloseTo(0.48); // (1000 - 40) / 2000
    expect(c.x).toBeCloseTo(20);
    expect(c.y).toBeCloseTo((800 - 480) / 2);
    // Tiny images are not blown past the maximum scale.
    expect(fitToScreen({ width: 1000, height: 800 }, { width: 10, height: 10 }).scale).toBe(10);
  });

  it('brings a shape into view: untouched when visible, centred (zooming out if needed) otherwise', () => {
    const view = { width: 1000, height: 800 };
    const c = { x: 0, y: 0, scale: 1 };
    expect(bringIntoView(c, view, { minX: 10, minY: 10, maxX: 50, maxY: 50 })).toBe(c);
    const far = bringIntoView(c, view, { minX: 3000, minY: 3000, maxX: 3100, maxY: 3050 });
    expect(far.scale).toBe(1);
    expect(imageToScreen(far, 3050, 3025)).toEqual([500, 400]);
    const huge = bringIntoView(c, view, { minX: 0, minY: 0, maxX: 4000, maxY: 100 });
    expect(huge.scale).toBeCloseTo(960 / 4000);
    const v = visibleBounds(huge, view);
    expect(v.minX).toBeLessThanOrEqual(0);
    expect(v.maxX).toBeGreaterThanOrEqual(4000);
  });
});

describe('camera through the editor', () => {
  it('wheel zooms 1.1 a notch in and back out at the cursor', () => {
    const t = new TestEditor();
    t.editor.wheel({ x: 300, y: 200, deltaY: -100 });
    expect(t.editor.getCamera().scale).toBeCloseTo(1.1);
    t.editor.wheel({ x: 300, y: 200, deltaY: 100 });
    expect(t.editor.getCamera().scale).toBeCloseTo(1);
    const [ix, iy] = t.editor.screenToImage(300, 200);
    expect(ix).toBeCloseTo(300);
    expect(iy).toBeCloseTo(200);
  });

  it('wheel zooms by the delta, so a merged burst of notches zooms as the notches would', () => {
    const t = new TestEditor();
    t.editor.wheel({ x: 300, y: 200, deltaY: -300 });
    expect(t.editor.getCamera().scale).toBeCloseTo(1.1 ** 3);
    t.editor.wheel({ x: 300, y: 200, deltaY: 30 });
    expect(t.editor.getCamera().scale).toBeCloseTo(1.1 ** 2.7);
    // One event never zooms by more than 5 notches, and a non-finite delta does nothing.
    t.editor.wheel({ x: 300, y: 200, deltaY: 100_000 });
    expect(t.editor.getCamera().scale).toBeCloseTo(1.1 ** -2.3);
    t.editor.wheel({ x: 300, y: 200, deltaY: Number.NaN });
    expect(t.editor.getCamera().scale).toBeCloseTo(1.1 ** -2.3);
  });

  it('pans with W/A/S/D by 50 px', () => {
    const t = new TestEditor();
    t.key('d');
    t.key('s');
    expect(t.editor.getCamera()).toMatchObject({ x: -50, y: -50 });
    t.key('A');
    t.key('w');
    expect(t.editor.getCamera()).toMatchObject({ x: 0, y: 0 });
  });

  it('pans by middle-button drag and by space+drag without touching shapes', () => {
    const t = new TestEditor();
    t.editor.load([box('a', 0, 0, 500, 500)]);
    t.editor.pointerDown({ x: 100, y: 100, button: 1 });
    t.editor.pointerMove({ x: 130, y: 90 });
    t.editor.pointerUp({ x: 130, y: 90, button: 1 });
    expect(t.editor.getCamera()).toMatchObject({ x: 30, y: -10 });
    t.editor.keyDown({ key: ' ' });
    t.editor.pointerDown({ x: 100, y: 100 });
    t.editor.pointerMove({ x: 110, y: 120 });
    t.editor.pointerUp({ x: 110, y: 120 });
    t.editor.keyUp({ key: ' ' });
    expect(t.editor.getCamera()).toMatchObject({ x: 40, y: 10 });
    expect(t.editor.getAnnotation('a')).toMatchObject({ x: 0, y: 0 });
    expect(t.editor.canUndo()).toBe(false);
  });

  it('the pan tool pans on a primary drag', () => {
    const t = new TestEditor();
    t.editor.setTool('pan');
    t.editor.pointerDown({ x: 0, y: 0 });
    t.editor.pointerMove({ x: -25, y: 40 });
    t.editor.pointerUp({ x: -25, y: 40 });
    expect(t.editor.getCamera()).toMatchObject({ x: -25, y: 40 });
  });

  it('fitToScreen and bringIntoView notify subscribers of a camera change', () => {
    const t = new TestEditor();
    t.editor.load([box('far', 1900, 1400, 50, 50)]);
    let cameraChanges = 0;
    t.editor.subscribe((c) => (cameraChanges += c.camera ? 1 : 0));
    t.editor.fitToScreen();
    expect(t.editor.getCamera().scale).toBeCloseTo(Math.min(960 / 2000, 760 / 1500));
    t.editor.setCamera({ x: 0, y: 0, scale: 1 });
    t.editor.bringIntoView('far');
    const [sx, sy] = t.editor.imageToScreen(1925, 1425);
    expect([sx, sy]).toEqual([500, 400]);
    expect(cameraChanges).toBe(3);
  });

  it('tools get image coordinates: drawing while zoomed and panned lands in the right place', () => {
    const t = new TestEditor();
    t.editor.setCamera({ x: -300, y: 120, scale: 2 });
    t.editor.setTool('box');
    t.editor.setActiveClass('car');
    t.drag([400, 300], [450, 380]);
    expect(t.only()).toMatchObject({ x: 400, y: 300, width: 50, height: 80 });
  });
});

describe('fit with room kept clear (issue 33: the Auto-Annotate bar never covers the image at fit zoom)', () => {
  it('keeps the reserved room below the image and centres it in what is left', () => {
    const c = fitToScreen({ width: 1000, height: 800 }, { width: 2000, height: 1500 }, 20, { top: 0, right: 0, bottom: 100, left: 0 });
    const [, bottom] = imageToScreen(c, 0, 1500);
    expect(bottom).toBeLessThanOrEqual(800 - 100);
    const [, top] = imageToScreen(c, 0, 0);
    expect(top).toBeGreaterThanOrEqual(20);
    expect(c.scale).toBeCloseTo((800 - 20 - 100) / 1500, 9);
  });

  it('the editor refits a view at fit zoom when the room changes, and leaves a zoomed view alone', () => {
    const t = new TestEditor();
    t.editor.fitToScreen();
    t.editor.setFitInsets({ top: 0, right: 0, bottom: 120, left: 0 });
    const [, bottom] = t.editor.imageToScreen(0, 1500);
    expect(bottom).toBeCloseTo(800 - 120, 6); // height-limited now: the image ends where the room starts
    t.editor.zoomIn();
    const zoomed = t.editor.getCamera();
    t.editor.setFitInsets({ top: 0, right: 0, bottom: 0, left: 0 });
    expect(t.editor.getCamera()).toEqual(zoomed);
    t.editor.fitToScreen();
    expect(t.editor.getCamera()).toEqual(fitToScreen({ width: 1000, height: 800 }, { width: 2000, height: 1500 }));
  });
});

describe('an image too big to be seen whole at 10% (the 20,000 x 20,000 images we promise)', () => {
  const view = { width: 1000, height: 800 };
  const big = { width: 20_000, height: 20_000 };

  it('fits whole below 10%; a smaller image keeps the 10% floor', () => {
    const fit = fitToScreen(view, big);
    expect(fit.scale).toBeCloseTo(760 / 20_000, 9);
    const v = visibleBounds(fit, view);
    expect(v.minX).toBeLessThanOrEqual(0);
    expect(v.minY).toBeLessThanOrEqual(0);
    expect(v.maxX).toBeGreaterThanOrEqual(20_000);
    expect(v.maxY).toBeGreaterThanOrEqual(20_000);
    expect(minScaleFor(view, big)).toBeCloseTo(760 / 20_000, 9);
    expect(minScaleFor(view, { width: 2000, height: 1500 })).toBe(0.1);
    expect(minScaleFor(view, null)).toBe(0.1);
    // The room kept clear for a bar lowers the floor with the fit.
    expect(minScaleFor(view, big, 20, { top: 0, right: 0, bottom: 100, left: 0 })).toBeCloseTo(680 / 20_000, 9);
  });

  it('in the editor: the fit shows it whole, zooming out stops there, and a view set below it is raised to it', () => {
    const t = new TestEditor();
    t.editor.setImageSize(big);
    t.editor.fitToScreen();
    const fit = t.editor.getCamera();
    expect(fit.scale).toBeCloseTo(760 / 20_000, 9);
    t.editor.zoomOut();
    expect(t.editor.getCamera().scale).toBeCloseTo(fit.scale, 9);
    for (let i = 0; i < 40; i++) t.editor.wheel({ x: 500, y: 400, deltaY: -100 });
    expect(t.editor.getCamera().scale).toBeGreaterThan(1);
    for (let i = 0; i < 80; i++) t.editor.wheel({ x: 500, y: 400, deltaY: 100 });
    expect(t.editor.getCamera().scale).toBeCloseTo(fit.scale, 9);
    t.editor.setCamera({ x: 0, y: 0, scale: 0.001 });
    expect(t.editor.getCamera().scale).toBeCloseTo(fit.scale, 9);
    // Back to a small image, the floor is 10% again.
    t.editor.setImageSize({ width: 2000, height: 1500 });
    t.editor.setCamera({ x: 0, y: 0, scale: 0.001 });
    expect(t.editor.getCamera().scale).toBe(0.1);
  });
});
