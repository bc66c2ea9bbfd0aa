// Pixel-test scenes: each opens its image's document in the page's Editor, as the SPA opens the
// next image (./page/main.ts draws it through createRenderer, as the SPA does).
import { Editor, rle, type CameraState, type EditorAnnotation } from '../../src/engine';
import type { RenderDisplay } from '../../src/workers/protocol';

export const WIDTH = 320;
export const HEIGHT = 240;

type SceneImage = ImageBitmap | { none: { width: number; height: number } };

/** Opens a scene in the page's Editor (`open`) and says how to draw it. */
export type SceneBuilder = (editor: Editor) => Promise<Scene>;

/**
 * Renderer options a scene needs besides the defaults (the page draws each set of options on a
 * renderer of its own): the tiled scenes' texture cap, so their 6000 x 3000 image is cut into tiles.
 */
export const sceneOptions: Record<string, { maxTextureSize?: number }> = {
  tiledOverview: { maxTextureSize: 4096 },
  tiledDetail: { maxTextureSize: 4096 },
};

/** What a scene's afterFirstPicture may ask of the page's renderer. */
export interface SceneRenderer {
  refreshColors(): void;
  /** The canvas's CSS size (the page puts it back to WIDTH x HEIGHT for the next scene). */
  resize(width: number, height: number): void;
  idle(): Promise<unknown>;
  stats(): Promise<{ frames: number; buildMs: number }>;
}

export interface Scene {
  image: SceneImage;
  classColor: (c: string) => string;
  /** Applied once the first picture is drawn (the page then waits for the renderer again). */
  afterFirstPicture?: (renderer: SceneRenderer) => void | Promise<void>;
  /** A zoom gesture left open by afterFirstPicture: the page resolves without waiting for it to rest (the test takes its picture), then `release`s it. */
  held?: { release(): void };
  /** Display settings over the defaults; scenes without it draw no labels (they test other things). */
  display?: Partial<RenderDisplay>;
}

const colors: Record<string, string> = { car: '#FFADAD', tree: '#CAFFBF', road: '#A0C4FF', sign: '#FFD6A5', person: '#BDB2FF' };
const classColor = (c: string) => colors[c] ?? '#FDFFB6';

/** A flat image of one colour (pixel checks of outlines and halos). */
async function flatImage(w: number, h: number, color: string): Promise<ImageBitmap> {
  const c = new OffscreenCanvas(w, h);
  const g = c.getContext('2d')!;
  g.fillStyle = color;
  g.fillRect(0, 0, w, h);
  return createImageBitmap(c);
}

/** Canvases drawn by testImage, by size and grid: the tiled scenes (6000 x 3000) share one (a bitmap is transferred to the renderer, so each scene gets its own copy). */
const drawn = new Map<string, OffscreenCanvas>();

/** A deterministic photo-like image: gradient, grid, discs (so tiles and levels are visible). */
async function testImage(w: number, h: number, grid = 40): Promise<ImageBitmap> {
  const key = `${w}x${h}/${grid}`;
  const had = drawn.get(key);
  if (had) return createImageBitmap(had);
  const c = new OffscreenCanvas(w, h);
  drawn.set(key, c);
  const g = c.getContext('2d')!;
  const grad = g.createLinearGradient(0, 0, w, h);
  grad.addColorStop(0, '#d9dde3');
  grad.addColorStop(1, '#8793a3');
  g.fillStyle = grad;
  g.fillRect(0, 0, w, h);
  g.strokeStyle = '#55606e';
  g.lineWidth = Math.max(1, grid / 20);
  g.beginPath();
  for (let x = 0; x <= w; x += grid) { g.moveTo(x, 0); g.lineTo(x, h); }
  for (let y = 0; y <= h; y += grid) { g.moveTo(0, y); g.lineTo(w, y); }
  g.stroke();
  const discs = [['#c0392b', 0.2, 0.3], ['#27ae60', 0.5, 0.6], ['#2c3e50', 0.8, 0.35]] as const;
  for (const [col, fx, fy] of discs) {
    g.fillStyle = col;
    g.beginPath();
    g.arc(fx * w, fy * h, Math.min(w, h) * 0.12, 0, Math.PI * 2);
    g.fill();
  }
  return createImageBitmap(c);
}

/** A scene draws on the page's Editor of this size (one for each renderer it makes). */
export const newEditor = () => new Editor({ viewport: { width: WIDTH, height: HEIGHT } });

/** What a scene may set that a person's or a project's settings keep across images (as a new Editor has it). */
const DEFAULT_VIEW = newEditor().getView();

/** Documents opened so far: each scene's under a key of its own, as each image's in the SPA. */
let opened = 0;

/**
 * Opens a scene in `editor` as the SPA opens the next image (src/app/editor-session/openImage.ts):
 * the pixels first, then the image's size, the document loaded under a new key (the renderer
 * holds the last frame until `setImage`), then the camera. The settings a scene may have changed
 * go back to a new Editor's first. Resolves to the image, for the page's `setImage`.
 */
async function open(editor: Editor, annotations: EditorAnnotation[], pixels: SceneImage | Promise<SceneImage>, camera: CameraState = { x: 0, y: 0, scale: 1 }): Promise<SceneImage> {
  const image = await pixels;
  editor.setTool(DEFAULT_VIEW.tool);
  editor.setActiveClass(DEFAULT_VIEW.activeClass);
  editor.setTransparency(DEFAULT_VIEW.transparency);
  editor.skeletons.set(new Map());
  editor.setImageSize('none' in image ? image.none : { width: image.width, height: image.height });
  if (!(await editor.loadAsync(annotations, { historyKey: `scene-${++opened}` }))) throw new Error('the scene\'s load was cancelled');
  editor.setCamera(camera);
  return image;
}

function circleMask(h: number, w: number, cx: number, cy: number, r: number): { rle: { size: [number, number]; counts: number[] }; bbox: [number, number, number, number] } {
  const m = new Uint8Array(h * w);
  for (let x = 0; x < w; x++) for (let y = 0; y < h; y++) if ((x + 0.5 - cx) ** 2 + (y + 0.5 - cy) ** 2 <= r * r) m[x * h + y] = 1;
  return { rle: { size: [h, w], counts: rle.encodeMask(m, h, w) }, bbox: [Math.floor(cx - r), Math.floor(cy - r), Math.ceil(2 * r), Math.ceil(2 * r)] };
}

const COMPACT_CAMERA = { x: 4, y: 4, scale: 0.13 };

/**
 * Zoomed out (scale 0.1), shapes drawn from impostor textures (issue 35): 1,200 polygons of 3-6 px
 * on screen (dots) and 40 of 16-20 px (compact), over an image; after the first picture, `change`:
 * the 'car' shapes selected, the 'tree' class recoloured, or the 'sign' shapes moved 40 px right.
 */
function impostorScene(change: 'none' | 'select' | 'recolor' | 'edit'): SceneBuilder {
  return async (editor) => {
    const shapes: EditorAnnotation[] = [];
    let seed = 11;
    const rand = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
    const cls = ['car', 'tree', 'road', 'sign', 'person'];
    for (let i = 0; i < 1240; i++) {
      const big = i >= 1200, r = big ? 80 + rand() * 20 : 15 + rand() * 15;
      const cx = 120 + rand() * 2960, cy = 120 + rand() * 2160;
      const points = Array.from({ length: 12 }, (_, k) => [cx + Math.cos((k / 12) * Math.PI * 2) * r * (k % 2 ? 0.8 : 1), cy + Math.sin((k / 12) * Math.PI * 2) * r] as [number, number]);
      shapes.push({ id: `i${i}`, type: 'polygon', class: cls[i % 5]!, points });
    }
    const image = await open(editor, shapes, testImage(3200, 2400, 200), { x: 0, y: 0, scale: 0.1 });
    // saturated colours: a selected dot (opaque) is told from an unselected one (60%) over the grey image
    const own: Record<string, string> = { car: '#D00000', tree: '#00A000', road: '#0030E0', sign: '#E0A000', person: '#8000C0' };
    const ofClass = (c: string) => shapes.filter((a) => a.class === c).map((a) => a.id);
    return {
      image,
      classColor: (c) => own[c] ?? '#FDFFB6',
      afterFirstPicture: (renderer) => {
        if (change === 'select') editor.select(ofClass('car'));
        if (change === 'recolor') {
          own.tree = '#FF00FF';
          renderer.refreshColors();
        }
        if (change === 'edit') {
          editor.select(ofClass('sign'));
          editor.nudgeSelected(400, 0);
          editor.clearSelection();
        }
      },
    };
  };
}


/** Opens the compact scene in `editor` at `camera`; resolves to its image and how to reach the final view (camera, then hover). */
async function compactScene(editor: Editor, camera: CameraState): Promise<{ image: SceneImage; finish: () => void }> {
  let seed = 3;
  const rand = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  const ring = (cx: number, cy: number, r: number, n = 16) => Array.from({ length: n }, (_, k) => {
    const rr = r * (0.6 + 0.4 * rand());
    return [cx + Math.cos((k / n) * Math.PI * 2) * rr, cy + Math.sin((k / n) * Math.PI * 2) * rr] as [number, number];
  });
  const cls = ['car', 'tree', 'road', 'sign', 'person'];
  const shapes: EditorAnnotation[] = [];
  for (let i = 0; i < 48; i++) {
    const cx = 150 + (i % 8) * 290, cy = 150 + Math.floor(i / 8) * 260, r = i % 6 === 5 ? 30 : 45 + rand() * 40;
    shapes.push({ id: `p${i}`, type: 'polygon', class: cls[i % 5]!, points: ring(cx, cy, r) });
  }
  shapes[9] = { id: 'p9', type: 'polygon', class: 'road', points: ring(150 + 290, 410, 100), holes: [ring(150 + 290, 410, 45, 10).reverse()] };
  shapes.push({ id: 'line', type: 'polyline', class: 'sign', points: [[300, 1700], [500, 1600], [700, 1720]] });
  shapes.push({ id: 'box', type: 'box', class: 'car', x: 900, y: 1600, width: 120, height: 90 });
  const image = await open(editor, shapes, testImage(2400, 1800, 200), camera);
  editor.setTransparency(40);
  editor.select(['p2']);
  editor.hide(['p4']);
  const finish = () => {
    editor.setCamera(COMPACT_CAMERA);
    // hover p10 through the select tool, as a user would
    editor.pointerMove({ x: (150 + 2 * 290) * COMPACT_CAMERA.scale + COMPACT_CAMERA.x, y: (150 + 260) * COMPACT_CAMERA.scale + COMPACT_CAMERA.y });
  };
  return { image, finish };
}

/** A regular polygon of `n` points about (cx, cy). */
const ngon = (cx: number, cy: number, r: number, n: number) => Array.from({ length: n }, (_, k) => [cx + Math.cos((k / n) * Math.PI * 2) * r, cy + Math.sin((k / n) * Math.PI * 2) * r] as [number, number]);

/**
 * One cell at scale 1 holding full shapes, compact polygons (15 px) and dots (5 px) (issue 35: an
 * edit rewrites the cell's range of its level's buffers). 'before': as loaded; 'edited': then,
 * after the first picture, p2 grows from 8 to 24 points (its range no longer fits: it moves),
 * c2 moves 20 px down (same size: rewritten in place), box b2 and dot d3 are removed and the last
 * dot d10 moves 12 px right (the dots' range shrinks: its old last dot must not stay drawn);
 * 'final': the edited shapes loaded from the start.
 */
function rangeEditScene(state: 'before' | 'edited' | 'final'): SceneBuilder {
  return async (editor) => {
    const shapes = (after: boolean): EditorAnnotation[] => {
      const out: EditorAnnotation[] = [
        { id: 'b1', type: 'box', class: 'car', x: 20, y: 20, width: 80, height: 60 },
        { id: 'p1', type: 'polygon', class: 'tree', points: ngon(180, 55, 40, 10) },
        { id: 'p2', type: 'polygon', class: 'road', points: ngon(265, 150, 35, after ? 24 : 8) },
        { id: 'p3', type: 'polygon', class: 'person', points: ngon(160, 160, 30, 12) },
      ];
      if (!after) out.push({ id: 'b2', type: 'box', class: 'sign', x: 20, y: 130, width: 80, height: 60 });
      for (let i = 1; i <= 6; i++) out.push({ id: `c${i}`, type: 'polygon', class: 'car', points: ngon(20 + i * 30, 105 + (after && i === 2 ? 20 : 0), 7.5, 9) });
      for (let i = 1; i <= 10; i++) if (!(after && i === 3)) out.push({ id: `d${i}`, type: 'polygon', class: 'sign', points: ngon(20 + i * 24 + (after && i === 10 ? 12 : 0), 222, 2.5, 6) });
      return out;
    };
    const image = await open(editor, shapes(state === 'final'), flatImage(WIDTH, HEIGHT, '#ffffff'));
    const edit = () => editor.applyRemote(shapes(true).filter((a) => ['p2', 'c2', 'd10'].includes(a.id)), ['b2', 'd3']);
    return { image, classColor, ...(state === 'edited' ? { afterFirstPicture: edit } : {}) };
  };
}

/**
 * 300 shapes over 8 x 6 cells (issue 35, compaction), zoomed out to where they are full boxes and
 * polylines, compact polygons and dots; after the first picture the polylines grow from 3 to 12
 * points in six edits with frames between them, so the cells' outline ranges move apart in the
 * order they were edited and leave holes: a pass falls into many runs. No two shapes overlap
 * (a grid of 400 px slots), so paint order between cells cannot change a pixel.
 */
async function looseGrid(editor: Editor): Promise<Scene> {
  let seed = 5;
  const rand = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  const cls = ['car', 'tree', 'road', 'sign', 'person'];
  const zigzag = (cx: number, cy: number, n: number) => Array.from({ length: n }, (_, k) => [cx - 150 + (300 * k) / (n - 1), cy + (k % 2 ? 60 : -60)] as [number, number]);
  const shape = (i: number, grown: boolean): EditorAnnotation => {
    const cx = 200 + (i % 20) * 400, cy = 200 + Math.floor(i / 20) * 400, kind = (i + Math.floor(i / 20)) % 4, id = `g${i}`, c = cls[i % 5]!;
    if (kind === 0) return { id, type: 'box', class: c, x: cx - 180, y: cy - 140, width: 360, height: 280 };
    if (kind === 3) return { id, type: 'polyline', class: c, points: zigzag(cx, cy, grown ? 12 : 3) };
    return { id, type: 'polygon', class: c, points: ngon(cx, cy, kind === 1 ? 60 + rand() * 30 : 150 + rand() * 40, 9) };
  };
  const shapes = Array.from({ length: 20 * 15 }, (_, i) => shape(i, false));
  const lines = shapes.map((_, i) => i).filter((i) => shapes[i]!.type === 'polyline');
  const image = await open(editor, shapes, { none: { width: 8000, height: 6000 } }, { x: 0, y: 0, scale: 0.04 });
  // six edits 80 ms apart (frames drawn between them), each growing a sixth of the polylines
  const grow = async () => {
    for (let step = 0; step < 6; step++) {
      editor.applyRemote(lines.filter((_, k) => (k * 7 + step) % 6 === 0).map((i) => shape(i, true)), []);
      await new Promise((r) => setTimeout(r, 80));
    }
  };
  return { image, classColor, afterFirstPicture: grow };
}

/** Resizes the page's canvas (its CSS size, the renderer's drawing buffer and the editor's viewport), as a window resize does. */
function resizeView(editor: Editor, renderer: SceneRenderer, width: number, height: number): void {
  const canvas = document.getElementById('c')!;
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  renderer.resize(width, height);
  editor.setViewport({ width, height });
}

/** The fused scene's camera (scale 1.5: the 400 x 300 image from (30, 20) on screen, far past the view's right and bottom edges). */
const FUSED_CAMERA = { x: 30, y: 20, scale: 1.5 };

/**
 * Issue 35, the fused path (src/workers/fused.ts): boxes (one across the image's left edge, where
 * its outline is drawn over the background), a polygon with a hole, a polyline, a keypoint, a
 * mask, small polygons drawn as dots and compact, one shape selected and one hovered, labels on.
 * After the first picture (drawn directly), `change`: 'rest' none; 'pan' the view moved 37 x 18 px
 * (the texture is drawn at the pan's first frame); then, after that pan and its frames: 'panOn'
 * on to 60 x 30 px; 'panFraction' on to 60.4 x 30.3 px (a fused frame moves by whole device px of
 * its texture: it must look like 'panOn'); 'panFar' on to 250 x 150 px (shapes past the texture's margin come into view); 'edit' a box
 * moved, the polyline removed and the mask replaced, 'hover' another shape hovered, 'select'
 * another shape selected, each followed by its frames and a pan on to 40 x 20 px. 'zoomIn' and
 * 'zoomOut': after the pan, a zoom gesture about (150, 120) on screen, a new scale every 20 ms (as
 * a pinch or a spun wheel gives them), in to 1.5 x 1.1^4 (the texture shown scaled all the way) or
 * out to 1.5 x 0.8^5 (the view's shapes leave the texture's margin on the way: drawn again at
 * that zoom), then the zoom rests. 'ahead': after the pan, on in 8 steps of 30 x 15 px, each at
 * rest (the view crosses the texture's margin, 80 x 60 px, twice: the next texture is drawn ahead
 * between the steps), then back in 9 steps of 40 x 20 px, past the pan's start. 'aheadEdit': 5 of
 * those steps on (the last one leaves a texture drawn ahead, not yet shown), then the box b2 moved
 * and the polyline removed (both in that texture), then one step more onto it. 'aheadResize': the
 * same 5 steps, then the canvas resized to 360 x 270 (the texture drawn ahead is for the old size),
 * then the same step more. 'aheadFling': 12
 * moves of 25 x 12 px 8 ms apart, then 6 of 40 x 20 px back (a fling that turns), not waiting for
 * the renderer between them (frames coalesce; textures begun ahead are taken late, or dropped).
 */
function fusedScene(change: 'rest' | 'pan' | 'panOn' | 'panFraction' | 'panFar' | 'edit' | 'hover' | 'select' | 'zoomIn' | 'zoomOut' | 'ahead' | 'aheadEdit' | 'aheadFling' | 'aheadResize'): SceneBuilder {
  return async (editor) => {
    const m1 = circleMask(300, 400, 120, 70, 30), m2 = circleMask(300, 400, 100, 100, 25);
    const seg = (id: string, m: ReturnType<typeof circleMask>): EditorAnnotation => ({ id, type: 'segmentation', class: 'person', x: m.bbox[0], y: m.bbox[1], width: m.bbox[2], height: m.bbox[3], rle: m.rle });
    const shapes: EditorAnnotation[] = [
      { id: 'b1', type: 'box', class: 'car', x: -20, y: 40, width: 90, height: 70 },
      { id: 'b2', type: 'box', class: 'tree', x: 150, y: 30, width: 120, height: 90 },
      { id: 'p1', type: 'polygon', class: 'road', points: [[40, 100], [200, 90], [190, 230], [60, 210]], holes: [[[90, 140], [150, 140], [140, 180], [100, 180]]] },
      { id: 'l1', type: 'polyline', class: 'sign', points: [[220, 150], [300, 130], [380, 160]] },
      { id: 'k1', type: 'keypoint', class: 'person', x: 180, y: 20 },
      seg('m1', m1),
    ];
    for (let i = 0; i < 12; i++) shapes.push({ id: `s${i}`, type: 'polygon', class: 'car', points: ngon(130 + (i % 4) * 16, 105 + Math.floor(i / 4) * 12, i % 2 ? 6 : 2, 8) });
    const image = await open(editor, shapes, testImage(400, 300), FUSED_CAMERA);
    editor.setTransparency(40);
    editor.select(['b2']);
    editor.pointerMove({ x: 70 * 1.5 + 30, y: 120 * 1.5 + 20 }); // hovers p1
    const pan = (dx: number, dy: number) => editor.setCamera({ ...FUSED_CAMERA, x: FUSED_CAMERA.x - dx, y: FUSED_CAMERA.y - dy });
    const changes: Record<typeof change, (renderer: SceneRenderer) => unknown> = {
      rest: () => {},
      pan: () => {},
      panOn: () => pan(60, 30),
      panFraction: () => pan(60.4, 30.3),
      panFar: () => pan(250, 150), // the polyline comes into view
      edit: () => editor.applyRemote([{ ...shapes[1]!, x: 180, y: 60 } as EditorAnnotation, seg('m2', m2)], ['l1', 'm1']),
      hover: () => editor.pointerMove({ x: 20 * 1.5 + 30 - 37, y: 75 * 1.5 + 20 - 18 }), // b1
      select: () => editor.select(['p1']),
      zoomIn: (renderer) => zoomGesture(renderer, 1.1, 4),
      zoomOut: (renderer) => zoomGesture(renderer, 0.8, 5),
      ahead: () => {},
      aheadEdit: () => {},
      aheadFling: () => {},
      aheadResize: () => {},
    };
    /** `n` pan steps of `by` from `from`, each waited until the renderer is idle. */
    const steps = async (renderer: { idle(): Promise<unknown> }, from: [number, number], by: [number, number], n: number) => {
      for (let k = 1; k <= n; k++) {
        pan(from[0] + by[0] * k, from[1] + by[1] * k);
        await renderer.idle();
      }
    };
    /**
     * A zoom gesture: `steps` zooms by `factor`, 20 ms apart, but the first step's frame drawn
     * before the second. On a busy machine a frame can take longer than the steps: the first
     * frame then came with all four zoom-ins at once (1.46x, past the scaled texture's 1.41x for
     * forms that change) and drew instead of scaling, and the test saw no scaled frame.
     */
    const zoomGesture = async (renderer: SceneRenderer, factor: number, steps: number) => {
      const before = (await renderer.stats()).frames;
      for (let i = 0; i < steps; i++) {
        editor.zoomAt(150, 120, factor);
        if (i === 0) while ((await renderer.stats()).frames === before) await new Promise((r) => setTimeout(r, 5));
        else await new Promise((r) => setTimeout(r, 20));
      }
    };
    const afterFirstPicture = async (renderer: SceneRenderer) => {
      if (change === 'rest') return;
      pan(37, 18);
      if (change === 'pan') return;
      await renderer.idle();
      if (change === 'aheadFling') {
        const moves: [number, number][] = [...Array.from({ length: 12 }, (_, k) => [37 + 25 * (k + 1), 18 + 12 * (k + 1)] as [number, number]), ...Array.from({ length: 6 }, (_, k) => [337 - 40 * (k + 1), 162 - 20 * (k + 1)] as [number, number])];
        for (const [x, y] of moves) {
          pan(x, y);
          await new Promise((r) => setTimeout(r, 8));
        }
        return;
      }
      if (change.startsWith('ahead')) {
        if (change === 'ahead') {
          await steps(renderer, [37, 18], [30, 15], 8);
          return steps(renderer, [277, 138], [-40, -20], 9);
        }
        await steps(renderer, [37, 18], [30, 15], 5);
        if (change === 'aheadResize') {
          resizeView(editor, renderer, 360, 270);
          await renderer.idle();
          await renderer.idle(); // the canvas's new size reaches the renderer through its ResizeObserver too
        } else {
          editor.applyRemote([{ ...shapes[1]!, x: 180, y: 60 } as EditorAnnotation], ['l1']);
          await renderer.idle();
        }
        return pan(217, 108);
      }
      await changes[change](renderer);
      if (change.startsWith('pan') || change.startsWith('zoom')) return;
      await renderer.idle();
      pan(40, 20);
    };
    return { image, classColor, display: { labels: true }, afterFirstPicture };
  };
}

/**
 * Issue 35, the fused path's bands (fused.ts): each band of a texture drawn ahead draws the dots and
 * compact polygons of the sub-cells that meet its grown viewport (cells.ts, pushRanges); none may be
 * lost at a band's edge or a sub-cell's. About 3,600
 * boxes of 20-80 image px, one in each 96 px slot of a 7000 x 5000 image (none overlap: the paint
 * order between cells cannot change a pixel), and 220 polygons of 120-240 px, one in each 384 px slot,
 * at scale 0.1 (the least zoom, and the benchmark's pan's): 2-8 px dots 9.6 px apart and 12-24 px
 * compact polygons over 7 x 5 cells (102 px on screen, their 4 x 4 sub-cells 25.6 px, which the
 * dots overhang by up to 4 px), so every band's edge, across and along, cuts through dots and
 * sub-cells. 'rest': opened at the pan's last view; 'pan': on from the start in 9 steps of
 * 30 x 20 px and back in 8 of 45 x 25 px, each at rest, crossing the texture's 80 x 60 px margin
 * several times each way: the next texture is drawn ahead in bands between the steps.
 */
function fusedBandsScene(change: 'rest' | 'pan'): SceneBuilder {
  return async (editor) => {
    // No shape across the last view's edges (image x -100 and 3100, y 400 and 2800, a screen px
    // each side): there the direct draw moves a dot's centre inside the view and clips a compact
    // polygon's triangles, which can change a row of edge pixels against the same shape drawn whole
    // into the texture (5 px in this scene, with the code before the bands' clip too); the bands'
    // edges, what this scene is about, lie inside the view.
    const shapes = denseDots(11, [-100, 3100], [400, 2800]);
    const start = { x: -80, y: -60, scale: 0.1 };
    const at = (dx: number, dy: number) => editor.setCamera({ ...start, x: start.x - dx, y: start.y - dy });
    const path: [number, number][] = [...Array.from({ length: 9 }, (_, k) => [30 * (k + 1), 20 * (k + 1)] as [number, number]), ...Array.from({ length: 8 }, (_, k) => [270 - 45 * (k + 1), 180 - 25 * (k + 1)] as [number, number])];
    const end = path[path.length - 1]!;
    const image = await open(editor, shapes, { none: { width: 7000, height: 5000 } }, start); // no pixels: every dot stands out on the dark background
    if (change === 'rest') {
      at(...end);
      return { image, classColor };
    }
    const afterFirstPicture = async (renderer: SceneRenderer) => {
      at(7, 3); // a first pan: the texture is drawn
      await renderer.idle();
      for (const [x, y] of path) {
        at(x, y);
        await renderer.idle();
      }
    };
    return { image, classColor, afterFirstPicture };
  };
}

/**
 * The dense dots and compact polygons of fusedBandsScene (seeded): about 3,600 boxes of 20-80 image
 * px, one in each 96 px slot of a 7000 x 5000 image, and 220 polygons of 120-240 px, one in each
 * 384 px slot; none across the image x's in `xs` or y's in `ys` (10 px to spare: a view's edges).
 */
function denseDots(seed: number, xs: number[], ys: number[]): EditorAnnotation[] {
  const rand = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  const cls = ['car', 'tree', 'road', 'sign', 'person', 'bike'];
  const shapes: EditorAnnotation[] = [];
  const clear = (x0: number, y0: number, x1: number, y1: number) => !xs.some((e) => x0 - 10 <= e && e <= x1 + 10) && !ys.some((e) => y0 - 10 <= e && e <= y1 + 10);
  for (let j = 0; j < 52; j++) {
    for (let i = 0; i < 72; i++) {
      const w = 20 + rand() * 60, h = 20 + rand() * 60, x = i * 96 + rand() * (96 - w), y = j * 96 + rand() * (96 - h);
      if (clear(x, y, x + w, y + h)) shapes.push({ id: `d${i}-${j}`, type: 'box', class: cls[(i * 7 + j * 3) % 6]!, x, y, width: w, height: h });
    }
  }
  for (let j = 0; j < 13; j++) {
    for (let i = 0; i < 18; i++) {
      const cx = 192 + i * 384 + (rand() - 0.5) * 60, cy = 192 + j * 384 + (rand() - 0.5) * 60, r = 60 + rand() * 60;
      if (clear(cx - r, cy - r, cx + r, cy + r)) shapes.push({ id: `c${i}-${j}`, type: 'polygon', class: cls[(i + j) % 6]!, points: ngon(cx, cy, r, 9) });
    }
  }
  return shapes;
}

/**
 * Issue 35, the fused path's wide bands (fused.ts, AHEAD_MOVES): a steady pan whose moves (60 x 25
 * px of the 320 x 240 view, against its 80 x 60 px margin: the code before drew a texture ahead
 * every move) are large enough that each texture drawn ahead covers the next three moves, drawn once for them. The dense dots of fusedBandsScene at scale
 * 0.1, none across the last view's edges. 'rest': opened at the pan's last view; 'pan': a first pan
 * of one move (the texture is drawn), then `moves` moves, each at rest. With 7, the textures drawn
 * ahead are taken at the 2nd and 5th of them and the last frame is the third of the last one's three
 * views, at the leading edge of its band: shown one move too long, or drawn for another view, it
 * would lack or shift the dots there.
 */
function fusedWideScene(change: 'rest' | 'pan', moves: number): SceneBuilder {
  return async (editor) => {
    const start = { x: 200, y: 100, scale: 0.1 }, step: [number, number] = [60, 25];
    // the last view (image px, 3200 x 2400 from here), (moves + 1) steps on from the start
    const ex = (step[0] * (moves + 1) - start.x) * 10, ey = (step[1] * (moves + 1) - start.y) * 10;
    const shapes = denseDots(23, [ex, ex + 3200], [ey, ey + 2400]);
    const at = (k: number) => editor.setCamera({ ...start, x: start.x - step[0] * k, y: start.y - step[1] * k });
    const image = await open(editor, shapes, { none: { width: 7000, height: 5000 } }, start);
    if (change === 'rest') {
      at(moves + 1);
      return { image, classColor };
    }
    const afterFirstPicture = async (renderer: SceneRenderer) => {
      for (let k = 1; k <= moves + 1; k++) {
        at(k);
        await renderer.idle();
      }
    };
    return { image, classColor, afterFirstPicture };
  };
}

/**
 * Issue 35, the fused path's zoom-in rule (fused.ts, stale()): jagged polygons of 3, 7, 12 and 20
 * image px in a grid over the image, seen at scale 0.85 (level exp 0: the 3 and 7 px ones dots,
 * the others compact polygons). 'rest': opened at the gesture's last view (its first picture is
 * drawn directly); 'zoomIn': from the view at 0.85 (after a pan, so the texture is kept), a zoom
 * gesture of four steps of 1.1x about the view's centre, a step every 20 ms; only the last one
 * crosses a half-octave (1.24: exp 0.5, the 7 px ones compact, the 20 px ones full). The gesture
 * is then held open (`held`) at that view, as a pinch held still: its scale moved by 1e-9 every
 * 20 ms (no pixel moves), until 10 frames were drawn after the last step and no level was built
 * in the last 3 of them (the new zoom's levels made), and until `release`.
 */
function fusedDotsScene(change: 'rest' | 'zoomIn'): SceneBuilder {
  return async (editor) => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
    const jagged = (cx: number, cy: number, ext: number) => Array.from({ length: 14 }, (_, k) => {
      const r = (ext / 2) * (k % 2 ? 0.55 + 0.2 * rand() : 1);
      return [cx + Math.cos((k / 14) * Math.PI * 2) * r, cy + Math.sin((k / 14) * Math.PI * 2) * r] as [number, number];
    });
    const cls = ['car', 'tree', 'road', 'sign', 'person'], sizes = [3, 7, 12, 20];
    const shapes: EditorAnnotation[] = [];
    for (let i = 0; i < 16 * 12; i++) shapes.push({ id: `d${i}`, type: 'polygon', class: cls[i % 5]!, points: jagged(14 + (i % 16) * 24, 14 + Math.floor(i / 16) * 24, sizes[(i + Math.floor(i / 16)) % 4]!) });
    const start = { x: 10, y: 8, scale: 0.85 };
    const image = await open(editor, shapes, testImage(400, 300), start);
    const zoom = () => editor.zoomAt(WIDTH / 2, HEIGHT / 2, 1.1);
    if (change === 'rest') {
      editor.setCamera({ ...start, x: start.x - 5, y: start.y - 3 });
      for (let i = 0; i < 4; i++) zoom();
      return { image, classColor };
    }
    const held = { release: () => {} };
    const afterFirstPicture = async (renderer: SceneRenderer) => {
      editor.setCamera({ ...start, x: start.x - 5, y: start.y - 3 });
      await renderer.idle();
      for (let i = 0; i < 4; i++) {
        zoom();
        await new Promise((r) => setTimeout(r, 20));
      }
      const cam = editor.getCamera();
      let step = 0;
      const jiggle = setInterval(() => editor.setCamera({ ...cam, scale: step++ % 2 ? cam.scale : cam.scale * (1 + 1e-9) }), 20);
      held.release = () => {
        clearInterval(jiggle);
        editor.setCamera(cam);
      };
      const s0 = await renderer.stats(), polls = [s0];
      for (;;) {
        await new Promise((r) => setTimeout(r, 20));
        const s = await renderer.stats();
        polls.push(s);
        const before = polls.findLast((p) => p.frames <= s.frames - 3);
        if (s.frames - s0.frames >= 10 && before && before.buildMs === s.buildMs) break;
      }
    };
    return { image, classColor, afterFirstPicture, held };
  };
}

export const scenes: Record<string, SceneBuilder> = {
  fusedDotsRest: fusedDotsScene('rest'),
  fusedDotsZoomIn: fusedDotsScene('zoomIn'),
  fusedRest: fusedScene('rest'),
  fusedPan: fusedScene('pan'),
  fusedPanOn: fusedScene('panOn'),
  fusedPanFraction: fusedScene('panFraction'),
  fusedPanFar: fusedScene('panFar'),
  fusedEdit: fusedScene('edit'),
  fusedHover: fusedScene('hover'),
  fusedSelect: fusedScene('select'),
  fusedZoomIn: fusedScene('zoomIn'),
  fusedZoomOut: fusedScene('zoomOut'),
  fusedAhead: fusedScene('ahead'),
  fusedAheadEdit: fusedScene('aheadEdit'),
  fusedAheadFling: fusedScene('aheadFling'),
  fusedAheadResize: fusedScene('aheadResize'),
  fusedBandsRest: fusedBandsScene('rest'),
  fusedBands: fusedBandsScene('pan'),
  fusedWideRest: fusedWideScene('rest', 7),
  fusedWide: fusedWideScene('pan', 7),
  looseGrid,
  rangeEditBefore: rangeEditScene('before'),
  rangeEdited: rangeEditScene('edited'),
  rangeEditFinal: rangeEditScene('final'),
  impostors: impostorScene('none'),
  impostorsSelect: impostorScene('select'),
  impostorsRecolor: impostorScene('recolor'),
  impostorsEdit: impostorScene('edit'),
  async boxes(editor) {
    const image = await open(editor, [
      { id: 'a', type: 'box', class: 'car', x: 20, y: 20, width: 120, height: 80 },
      { id: 'b', type: 'box', class: 'tree', x: 100, y: 60, width: 150, height: 110 },
      { id: 'c', type: 'box', class: 'road', x: 200, y: 150, width: 100, height: 70 },
      { id: 'hidden', type: 'box', class: 'sign', x: 30, y: 140, width: 100, height: 80 },
    ], testImage(WIDTH, HEIGHT));
    editor.hide(['hidden']);
    return { image, classColor };
  },
  async polygonHole(editor) {
    const image = await open(editor, [
      { id: 'p', type: 'polygon', class: 'road', points: [[40, 30], [280, 40], [260, 210], [150, 180], [50, 200]], holes: [[[110, 80], [200, 80], [190, 150], [120, 140]]] },
    ], testImage(WIDTH, HEIGHT));
    editor.setTransparency(30);
    return { image, classColor };
  },
  async lines(editor) {
    const image = await open(editor, [
      { id: 'l', type: 'polyline', class: 'sign', points: [[20, 200], [90, 60], [170, 170], [300, 30]] },
      { id: 'k1', type: 'keypoint', class: 'person', x: 60, y: 40 },
      { id: 'k2', type: 'keypoint', class: 'car', x: 250, y: 190 },
    ], testImage(WIDTH, HEIGHT));
    return { image, classColor };
  },
  async selected(editor) {
    const image = await open(editor, [
      { id: 'a', type: 'box', class: 'car', x: 30, y: 30, width: 110, height: 90 },
      { id: 'b', type: 'polygon', class: 'tree', points: [[180, 40], [290, 70], [260, 200], [170, 160]] },
      { id: 'c', type: 'box', class: 'road', x: 40, y: 150, width: 100, height: 60 },
    ], testImage(WIDTH, HEIGHT));
    editor.setTransparency(20);
    editor.select(['a', 'b']);
    // hover 'c' through the select tool, as a user would
    editor.pointerMove({ x: 90, y: 180 });
    return { image, classColor };
  },
  async mask(editor) {
    const m1 = circleMask(HEIGHT, WIDTH, 110, 110, 60);
    const m2 = circleMask(HEIGHT, WIDTH, 230, 150, 45);
    const image = await open(editor, [
      { id: 'm1', type: 'segmentation', class: 'person', x: m1.bbox[0], y: m1.bbox[1], width: m1.bbox[2], height: m1.bbox[3], rle: m1.rle },
      { id: 'm2', type: 'segmentation', class: 'car', x: m2.bbox[0], y: m2.bbox[1], width: m2.bbox[2], height: m2.bbox[3], rle: { size: m2.rle.size, counts: rle.countsToString(m2.rle.counts) } },
    ], testImage(WIDTH, HEIGHT));
    editor.setTransparency(40);
    return { image, classColor };
  },
  /** Masks from the shared atlas with view state: m1 selected, m2 hidden, m3 over m1 (paint order). */
  async maskState(editor) {
    const m1 = circleMask(HEIGHT, WIDTH, 110, 110, 60);
    const m2 = circleMask(HEIGHT, WIDTH, 250, 80, 40);
    const m3 = circleMask(HEIGHT, WIDTH, 170, 150, 50);
    const seg = (id: string, cls: string, m: ReturnType<typeof circleMask>): EditorAnnotation => ({ id, type: 'segmentation', class: cls, x: m.bbox[0], y: m.bbox[1], width: m.bbox[2], height: m.bbox[3], rle: m.rle });
    const image = await open(editor, [seg('m1', 'person', m1), seg('m2', 'car', m2), seg('m3', 'car', m3)], testImage(WIDTH, HEIGHT));
    editor.setTransparency(40);
    editor.select(['m1']);
    editor.hide(['m2']);
    return { image, classColor };
  },
  /** 6000 x 3000 image with a 4096 texture cap: drawn from tiles, fitted whole (4.7%, below the 10% a smaller image stops at) from a coarse level. */
  async tiledOverview(editor) {
    const image = await open(editor, [
      { id: 'a', type: 'box', class: 'car', x: 1200, y: 600, width: 1500, height: 900 },
    ], testImage(6000, 3000, 500));
    editor.fitToScreen();
    return { image, classColor };
  },
  /** The same image zoomed to 1:1 near a disc edge: full-resolution tiles (level 0). */
  async tiledDetail(editor) {
    const image = await open(editor, [
      { id: 'a', type: 'polygon', class: 'tree', points: [[3250, 1700], [3450, 1750], [3400, 1900], [3270, 1880]] },
    ], testImage(6000, 3000, 500), { x: -3200, y: -1650, scale: 1 });
    return { image, classColor };
  },
  /**
   * Level of detail and culling: 1,200 polygons of ~50 image px seen at scale 0.1 (~5 px: each
   * drawn as one quad), a large box drawn in full, a selected tiny shape (opaque), and as many
   * shapes again to the right of the view (their cells are not drawn).
   */
  async tiny(editor) {
    const shapes: EditorAnnotation[] = [];
    let seed = 7;
    const rand = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
    const cls = ['car', 'tree', 'road', 'sign', 'person'];
    for (let i = 0; i < 2400; i++) {
      const cx = 60 + rand() * 3080 + (i % 2 ? 3200 : 0), cy = 60 + rand() * 2280, r = 15 + rand() * 15;
      const points = Array.from({ length: 12 }, (_, k) => [cx + Math.cos((k / 12) * Math.PI * 2) * r, cy + Math.sin((k / 12) * Math.PI * 2) * r] as [number, number]);
      shapes.push({ id: `t${i}`, type: 'polygon', class: cls[i % 5]!, points });
    }
    shapes.push({ id: 'big', type: 'box', class: 'road', x: 1000, y: 700, width: 1200, height: 900 });
    const image = await open(editor, shapes, { none: { width: 6400, height: 2400 } }, { x: 0, y: 0, scale: 0.1 });
    editor.select(['t0']);
    return { image, classColor };
  },
  /**
   * Small polygons drawn compact (level of detail): jagged 16-gons of 9-20 px on screen, one with
   * a hole, one selected, one hovered, one hidden, a polyline and a box of the same size (drawn in
   * full), and shapes under 8 px (quads); transparency 40.
   */
  async compact(editor) {
    const { image, finish } = await compactScene(editor, COMPACT_CAMERA);
    finish();
    return { image, classColor };
  },
  /** The same, reached by zooming in from 0.04 (all quads): cells draw their quads until the new level is built. */
  async compactZoomed(editor) {
    const { image, finish } = await compactScene(editor, { x: 0, y: 0, scale: 0.04 });
    return { image, classColor, afterFirstPicture: finish };
  },
  /**
   * Tiny boxes (6 px on screen, drawn as dots) centred on the four edges of the view: each shows
   * its inner half (GPUs that clip a point by its centre would drop them; SwiftShader does not).
   */
  async dotsAtEdges(editor) {
    const shapes: EditorAnnotation[] = [];
    const cls = ['car', 'tree', 'road', 'sign', 'person'];
    // camera x/y -500 image px: the view spans 500..3700 x 500..2900 at scale 0.1
    const add = (cx: number, cy: number) => shapes.push({ id: `d${shapes.length}`, type: 'box', class: cls[shapes.length % 5]!, x: cx - 30, y: cy - 30, width: 60, height: 60 });
    for (let x = 700; x < 3600; x += 200) {
      add(x, 500);
      add(x, 2900);
    }
    for (let y = 700; y < 2800; y += 200) {
      add(500, y);
      add(3700, y);
    }
    const image = await open(editor, shapes, { none: { width: 4200, height: 3400 } }, { x: -50, y: -50, scale: 0.1 });
    return { image, classColor };
  },
  async drawing(editor) {
    const image = await open(editor, [
      { id: 'a', type: 'box', class: 'car', x: 20, y: 20, width: 80, height: 60 },
    ], { none: { width: WIDTH, height: HEIGHT } });
    editor.setActiveClass('tree');
    editor.setTool('polygon');
    for (const [x, y] of [[150, 40], [280, 60], [260, 180]] as const) {
      editor.pointerDown({ x, y, button: 0 });
      editor.pointerUp({ x, y, button: 0 });
    }
    editor.pointerMove({ x: 170, y: 200 });
    return { image, classColor };
  },
  /** Class names: one per shape at its top-left corner (inside it at the view's top), a keypoint's to its right, a selected shape's on top. */
  async labels(editor) {
    const image = await open(editor, [
      { id: 'a', type: 'box', class: 'car', x: 30, y: 64, width: 110, height: 80 },
      { id: 'b', type: 'polygon', class: 'tree', points: [[180, 60], [290, 90], [260, 200], [170, 170]] },
      { id: 'c', type: 'box', class: 'road', x: 10, y: 4, width: 60, height: 30 },
      { id: 'k', type: 'keypoint', class: 'person', x: 60, y: 190 },
      { id: 'l', type: 'polyline', class: 'a very long class name that is cut', points: [[150, 228], [310, 216]] },
    ], testImage(WIDTH, HEIGHT));
    editor.select(['b']);
    return { image, classColor, display: { labels: true } };
  },
  /** 400 small boxes in view (dense): only the hovered and the selected shape keep a label. */
  async labelsDense(editor) {
    const shapes: EditorAnnotation[] = [];
    const cls = ['car', 'tree', 'road', 'sign', 'person'];
    for (let i = 0; i < 400; i++) shapes.push({ id: `d${i}`, type: 'box', class: cls[i % 5]!, x: 4 + (i % 25) * 12.6, y: 8 + Math.floor(i / 25) * 14.5, width: 9, height: 10 });
    const image = await open(editor, shapes, { none: { width: WIDTH, height: HEIGHT } });
    editor.select(['d130']);
    editor.pointerMove({ x: 4 + 7 * 12.6 + 4, y: 8 + 12 * 14.5 + 5 }); // hovers d307
    return { image, classColor, display: { labels: true } };
  },
  /** Keypoints at scale 1: round dots of a constant screen size (see keypointsZoomed). */
  async keypoints(editor) {
    const image = await open(editor, keypointShapes(), flatImage(WIDTH, HEIGHT, '#e8eaee'));
    editor.select(['k3']);
    return { image, classColor };
  },
  /** The same keypoints at scale 3 (about the middle one): the dots keep their size on screen. */
  async keypointsZoomed(editor) {
    const image = await open(editor, keypointShapes(), flatImage(WIDTH, HEIGHT, '#e8eaee'), { x: -2 * 160, y: -2 * 120, scale: 3 });
    editor.select(['k3']);
    return { image, classColor };
  },
  /** A polyline on a white image: 2 px in the class colour with the dark halo on both sides. */
  async polylineHalo(editor) {
    const image = await open(editor, [
      { id: 'l', type: 'polyline', class: 'tree', points: [[20, 120], [300, 120]] },
      { id: 'l2', type: 'polyline', class: 'sign', points: [[40, 40], [160, 200], [280, 60]] },
    ], flatImage(WIDTH, HEIGHT, '#ffffff'));
    return { image, classColor, display: { outlineWidth: 1 } };
  },
  /** The outline width setting at Thick (3 px): boxes, a polygon, a mask. */
  async outlineThick(editor) {
    const m = circleMask(HEIGHT, WIDTH, 240, 160, 50);
    const image = await open(editor, [
      { id: 'a', type: 'box', class: 'car', x: 20, y: 20, width: 120, height: 80 },
      { id: 'b', type: 'polygon', class: 'tree', points: [[40, 130], [150, 140], [120, 220]] },
      { id: 'm', type: 'segmentation', class: 'person', x: m.bbox[0], y: m.bbox[1], width: m.bbox[2], height: m.bbox[3], rle: m.rle },
    ], testImage(WIDTH, HEIGHT));
    editor.setTransparency(60);
    return { image, classColor, display: { outlineWidth: 3 } };
  },
  /** Image adjustments: brightness 1.3, contrast 1.5, gamma 0.7 over the test image (no shapes). */
  async adjusted(editor) {
    const image = await open(editor, [], testImage(WIDTH, HEIGHT));
    return { image, classColor, display: { brightness: 1.3, contrast: 1.5, gamma: 0.7 } };
  },
  /**
   * A keypoint skeleton (issue 33) on a flat image: edges nose-left_eye, nose-right_eye (occluded),
   * nose-neck, neck-hip (hip not labelled: no edge); nose (100, 60), left_eye (60, 60), right_eye
   * (140, 60) occluded, neck (100, 160). No expected PNG: checked by pixel facts.
   */
  async skeleton(editor) {
    const image = await open(editor, [
      { id: 's', type: 'skeleton', class: 'car', keypoints: [{ x: 100, y: 60, v: 2 }, { x: 60, y: 60, v: 2 }, { x: 140, y: 60, v: 1 }, { x: 100, y: 160, v: 2 }, { x: 0, y: 0, v: 0 }] },
    ], flatImage(WIDTH, HEIGHT, '#e8eaee'));
    // given after the document is in (as when the project's classes change while an image is open): the edges must still be drawn
    editor.skeletons.set(new Map([['car', { points: ['nose', 'left_eye', 'right_eye', 'neck', 'hip'], edges: [[0, 1], [0, 2], [0, 3], [3, 4]] }]]));
    return { image, classColor };
  },
  /**
   * A model's predictions (issue 34) on a flat image, no fill: a pending box (20..300 x 40..110)
   * drawn dashed with its score on its label, and the same box accepted (20..300 x 150..220),
   * drawn whole. No expected PNG: checked by pixel facts along their bottom edges.
   */
  async predictions(editor) {
    const source = (pending: boolean) => ({ source: { model_id: 'builtin', score: 0.87, pending } });
    const image = await open(editor, [
      { id: 'p', type: 'box', class: 'car', x: 20, y: 40, width: 280, height: 70, extra: source(true) },
      { id: 'a', type: 'box', class: 'car', x: 20, y: 150, width: 280, height: 70, extra: source(false) },
    ], flatImage(WIDTH, HEIGHT, '#ffffff'));
    editor.setTransparency(100);
    return { image, classColor, display: { labels: true } };
  },
  /**
   * Level of detail for skeletons (issue 33): at scale 0.1 a skeleton 40 image px wide (4 px on
   * screen, its top-left at (100, 100)) is one dot, not five 9 px keypoint dots; a skeleton 400 px
   * wide (40 px on screen, from (200, 100)) is drawn whole. No expected PNG: pixel facts.
   */
  async tinySkeleton(editor) {
    const pts = (x: number, y: number, k: number) => [[0, 0], [1, 0], [0.5, 0.5], [0, 1], [1, 1]].map(([dx, dy]) => ({ x: x + dx! * k, y: y + dy! * k, v: 2 as const }));
    const image = await open(editor, [
      { id: 'tiny', type: 'skeleton', class: 'car', keypoints: pts(1000, 1000, 40) },
      { id: 'big', type: 'skeleton', class: 'car', keypoints: pts(2000, 1000, 400) },
    ], flatImage(3200, 2400, '#e8eaee'), { x: 0, y: 0, scale: 0.1 });
    editor.skeletons.set(new Map([['car', { points: ['a', 'b', 'c', 'd', 'e'], edges: [[0, 2], [1, 2], [2, 3], [2, 4]] }]]));
    return { image, classColor };
  },
  /**
   * Pending predictions of every other kind (issue 34), no fill, on white: a pending rectangle mask
   * (20..140 x 20..90) next to the same mask accepted (180..300 x 20..90), a pending keypoint
   * (60, 150) next to an accepted one (100, 150), and a pending two-point skeleton whose edge runs
   * along y 200 from x 160 to 300. No expected PNG: checked by pixel facts.
   */
  async pendingKinds(editor) {
    const source = (pending: boolean) => ({ source: { model_id: 'builtin', score: 0.6, pending } });
    const rectMask = (x0: number, y0: number, x1: number, y1: number) => {
      const m = new Uint8Array(HEIGHT * WIDTH);
      for (let x = x0; x < x1; x++) for (let y = y0; y < y1; y++) m[x * HEIGHT + y] = 1;
      return { size: [HEIGHT, WIDTH] as [number, number], counts: rle.encodeMask(m, HEIGHT, WIDTH) };
    };
    const image = await open(editor, [
      { id: 'mp', type: 'segmentation', class: 'person', x: 20, y: 20, width: 120, height: 70, rle: rectMask(20, 20, 140, 90), extra: source(true) },
      { id: 'ma', type: 'segmentation', class: 'person', x: 180, y: 20, width: 120, height: 70, rle: rectMask(180, 20, 300, 90), extra: source(false) },
      { id: 'kp', type: 'keypoint', class: 'car', x: 60, y: 150, extra: source(true) },
      { id: 'ka', type: 'keypoint', class: 'car', x: 100, y: 150, extra: source(false) },
      { id: 'sp', type: 'skeleton', class: 'car', keypoints: [{ x: 160, y: 200, v: 2 }, { x: 300, y: 200, v: 2 }], extra: source(true) },
    ], flatImage(WIDTH, HEIGHT, '#ffffff'));
    editor.skeletons.set(new Map([['car', { points: ['a', 'b'], edges: [[0, 1]] }]]));
    editor.setTransparency(100);
    return { image, classColor };
  },
  /**
   * A mask with a small island at the top left (10..16, 10..16) and its body lower right (a disc
   * about (220, 160), r 40): its label sits on the body, not at the island. No expected PNG.
   */
  async maskLabel(editor) {
    const m = new Uint8Array(HEIGHT * WIDTH);
    for (let x = 0; x < WIDTH; x++) {
      for (let y = 0; y < HEIGHT; y++) {
        if ((x >= 10 && x < 16 && y >= 10 && y < 16) || (x + 0.5 - 220) ** 2 + (y + 0.5 - 160) ** 2 <= 40 * 40) m[x * HEIGHT + y] = 1;
      }
    }
    const image = await open(editor, [{ id: 'm', type: 'segmentation', class: 'person', x: 10, y: 10, width: 250, height: 190, rle: { size: [HEIGHT, WIDTH], counts: rle.encodeMask(m, HEIGHT, WIDTH) } }], flatImage(WIDTH, HEIGHT, '#ffffff'));
    return { image, classColor, display: { labels: true } };
  },
  /** The test image as it is (the adjusted scene's reference; no expected PNG of its own). */
  async unadjusted(editor) {
    const image = await open(editor, [], testImage(WIDTH, HEIGHT));
    return { image, classColor };
  },
};

function keypointShapes(): EditorAnnotation[] {
  return [
    { id: 'k1', type: 'keypoint', class: 'car', x: 150, y: 110 },
    { id: 'k2', type: 'keypoint', class: 'tree', x: 170, y: 110 },
    { id: 'k3', type: 'keypoint', class: 'person', x: 160, y: 130 },
    { id: 'k4', type: 'keypoint', class: 'road', x: 40, y: 40 },
  ];
}
