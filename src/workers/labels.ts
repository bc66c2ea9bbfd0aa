// Class-name labels on the canvas, drawn by the renderer: each distinct (name, colour) is
// rasterised once with a 2D OffscreenCanvas into a label atlas (a dark pill, a dot of the class
// colour, the name in white Inter), and every label on screen is one textured quad at constant
// screen size. Placement is pure (placeLabels, unit-tested): above the shape's top-left corner
// (inside it at the top of the view), to the right of a keypoint; a label that would overlap one
// already placed is left out, so the topmost shapes keep theirs. The renderer hands in only the
// shapes in view, and only the hovered and selected ones when more than MAX_VISIBLE are in view.
import type { Buffer, DrawCommand, Regl, Texture2D } from 'regl';
import fontUrl from '@fontsource-variable/inter/files/inter-latin-wght-normal.woff2?url';
import type { CameraState } from '../engine';
import type { Chunk, Shape } from './cells';
import { labelFrag, labelVert } from './shaders';
import { largestPartTop } from './mask-label';

/** Above this many shapes in view, only the hovered and selected shapes are labelled. */
export const MAX_VISIBLE = 200;
/** Labels drawn at most (selected shapes beyond it go unlabelled). */
export const MAX_LABELS = 300;
/** Label box in CSS px. */
export const LABEL_H = 18;
const PAD_X = 6;
const DOT_D = 6;
const DOT_GAP = 5;
const MAX_TEXT_W = 160;
const FONT_PX = 11;
/** Between a label and its shape's corner (clears a selected box's corner handle). */
const GAP = 5;
const FAMILY = 'VellumLabel';
const FONT = `600 ${FONT_PX}px ${FAMILY}, "Inter Variable", Inter, system-ui, sans-serif`;
const ATLAS = 1024;
/** Premultiplied background of the pill: DESIGN.md's text colour #101828 at 82%. */
const PILL = 'rgba(16, 24, 40, 0.82)';

export interface LabelInput {
  text: string;
  /** 0xRRGGBB of the class. */
  color: number;
  /** Anchor in CSS px: the shape's top-left corner, or a keypoint. */
  ax: number;
  ay: number;
  point: boolean;
  /** Hovered or selected: placed first and never left out for overlapping. */
  priority: boolean;
}

export interface PlacedLabel {
  x: number;
  y: number;
  w: number;
  h: number;
  input: LabelInput;
}

/** What labelInputs looks at: the renderer's cells and shapes, and the view. */
export interface LabelScene {
  cells: Iterable<Chunk>;
  shapes: ReadonlyMap<string, Shape>;
  hovered: string | null;
  /** The selection, in the view's order. */
  selected: ReadonlySet<string>;
  hidden: ReadonlySet<string>;
  camera: CameraState;
}

/**
 * The labels to draw: every shape in view (image px) when at most MAX_VISIBLE are, else the
 * hovered and selected ones only. A cell inside the view counts whole without a look at its
 * shapes and the count stops past MAX_VISIBLE, so a frame never walks 100k shapes.
 */
export function labelInputs(scene: LabelScene, vx0: number, vy0: number, vx1: number, vy1: number): LabelInput[] {
  const { shapes: byId, hovered, selected, hidden } = scene;
  const inView = (b: readonly number[]) => !(b[0]! > vx1 || b[2]! < vx0 || b[1]! > vy1 || b[3]! < vy0);
  let shapes: Shape[] = [];
  let dense = false;
  for (const c of scene.cells) {
    const b = c.bounds;
    if (!inView(b)) continue;
    if (b[0] >= vx0 && b[2] <= vx1 && b[1] >= vy0 && b[3] <= vy1 && shapes.length + c.shapes.size > MAX_VISIBLE) dense = true;
    else {
      for (const s of c.shapes) {
        if (!inView(s.bounds) || hidden.has(s.id)) continue;
        if (shapes.push(s) > MAX_VISIBLE) {
          dense = true;
          break;
        }
      }
    }
    if (dense) break;
  }
  if (dense) {
    shapes = [];
    const h = hovered ? byId.get(hovered) : undefined;
    if (h) shapes.push(h);
    let looked = 0;
    for (const id of selected) {
      if (shapes.length >= MAX_LABELS || ++looked > 5000) break;
      const s = byId.get(id);
      if (s && s !== h && inView(s.bounds)) shapes.push(s);
    }
    shapes = shapes.filter((s) => !hidden.has(s.id));
  }
  shapes = shapes.filter((s) => s.label);
  shapes.sort((a, b) => b.z - a.z); // topmost first: they keep their labels where labels would overlap
  const { x: cx, y: cy, scale } = scene.camera;
  // a polyline's label goes at its first point (its bounds' corner may be far from the line), a
  // mask's at the top of its largest part (its bounds' corner may be on a stray island)
  const anchor = (s: Shape, k: 0 | 1) => (s.type === 2 ? s.geom.handles[k]! : s.maskLabel ? maskAnchor(s.maskLabel, s.bounds)[k] : s.bounds[k]);
  return shapes.map((s) => ({
    text: s.label,
    color: s.color,
    ax: anchor(s, 0) * scale + cx,
    ay: anchor(s, 1) * scale + cy,
    point: s.type === 3,
    priority: selected.has(s.id) || hovered === s.id,
  }));
}

/** The top of a mask's largest part, found once per change of the mask. */
function maskAnchor(m: NonNullable<Shape['maskLabel']>, bounds: Shape['bounds']): readonly [number, number] {
  if (m.at === undefined) m.at = largestPartTop(m.counts, m.height);
  return m.at ?? [bounds[0], bounds[1]];
}

/**
 * Where each label goes (CSS px), in input order of preference: priority labels first, then the
 * rest as given (the caller passes topmost first). A label overlapping an already placed one is
 * dropped unless it has priority.
 */
export function placeLabels(inputs: readonly LabelInput[], widthOf: (l: LabelInput) => number, viewW: number, viewH: number, max = MAX_LABELS): PlacedLabel[] {
  const order = [...inputs.filter((l) => l.priority), ...inputs.filter((l) => !l.priority)];
  const out: PlacedLabel[] = [];
  for (const l of order) {
    if (out.length >= max) break;
    const w = widthOf(l), h = LABEL_H;
    let x: number, y: number;
    if (l.point) {
      x = l.ax + 9;
      y = l.ay - h / 2;
    } else {
      x = l.ax - 1;
      y = l.ay - GAP - h;
      if (y < 0) y = l.ay + GAP; // no room above: just inside the shape's corner
    }
    x = Math.round(Math.max(0, Math.min(viewW - w, x)));
    y = Math.round(Math.max(0, Math.min(viewH - h, y)));
    if (!l.priority && out.some((p) => x < p.x + p.w + 2 && p.x < x + w + 2 && y < p.y + p.h + 1 && p.y < y + h + 1)) continue;
    out.push({ x, y, w, h, input: l });
  }
  return out;
}

interface Entry {
  /** Atlas position and size in device px. */
  u: number;
  v: number;
  pw: number;
  ph: number;
  /** Width in CSS px. */
  w: number;
  used: number;
}

type Canvas2D = OffscreenCanvasRenderingContext2D | CanvasRenderingContext2D;

function canvas2d(w: number, h: number): Canvas2D {
  if (typeof OffscreenCanvas !== 'undefined') return new OffscreenCanvas(w, h).getContext('2d', { willReadFrequently: true })!;
  const c = document.createElement('canvas');
  c.width = w;
  c.height = h;
  return c.getContext('2d', { willReadFrequently: true })!;
}

/** The label font, loaded once per realm (a worker has no page fonts). */
let fontLoad: Promise<void> | null = null;
function loadFont(): Promise<void> {
  fontLoad ??= (async () => {
    const set = (globalThis as { fonts?: FontFaceSet }).fonts ?? (typeof document !== 'undefined' ? document.fonts : undefined);
    if (!set || typeof FontFace === 'undefined') return;
    const face = new FontFace(FAMILY, `url(${new URL(fontUrl, location.href).href})`, { weight: '100 900' });
    await face.load();
    set.add(face);
  })().catch((err: unknown) => {
    console.warn('Label font not loaded, using the system font:', err);
  });
  return fontLoad;
}

export class LabelLayer {
  private readonly tex: Texture2D;
  private readonly buf: Buffer;
  private readonly draw: DrawCommand;
  private readonly entries = new Map<string, Entry>();
  /** Widths (CSS px) by key, measured once: labels left out for overlapping are measured every frame otherwise. */
  private readonly widths = new Map<string, number>();
  private readonly measure: Canvas2D;
  private shelfX = 0;
  private shelfY = 0;
  private dpr = 1;
  private frame = 0;
  private count = 0;
  /** True while the font loads (no labels are drawn until it has). */
  loading = true;

  constructor(regl: Regl, onReady: () => void) {
    this.tex = regl.texture({ width: ATLAS, height: ATLAS, min: 'linear', mag: 'linear', wrapS: 'clamp', wrapT: 'clamp' });
    this.buf = regl.buffer({ usage: 'dynamic', type: 'float', length: 0 });
    this.measure = canvas2d(1, 1);
    this.draw = regl({
      vert: labelVert,
      frag: labelFrag,
      attributes: { a_pos: { buffer: this.buf, stride: 16, offset: 0 }, a_uv: { buffer: this.buf, stride: 16, offset: 8 } },
      uniforms: { u_view: regl.prop<any, 'view'>('view'), u_tex: this.tex },
      count: regl.prop<any, 'count'>('count'),
      blend: { enable: true, func: { src: 'one', dst: 'one minus src alpha' } },
      depth: { enable: false },
    });
    void loadFont().then(() => {
      this.loading = false;
      this.widths.clear(); // measured with the fallback font
      onReady();
    });
  }

  private key(l: LabelInput): string {
    return `${l.color}|${l.text}`;
  }

  /** The label's width in CSS px (its text truncated to MAX_TEXT_W). */
  widthOf = (l: LabelInput): number => {
    const k = this.key(l);
    let w = this.widths.get(k);
    if (w === undefined) {
      if (this.widths.size > 4096) this.widths.clear();
      this.measure.font = FONT;
      w = PAD_X + DOT_D + DOT_GAP + Math.min(MAX_TEXT_W, Math.ceil(this.measure.measureText(l.text).width)) + PAD_X;
      this.widths.set(k, w);
    }
    return w;
  };

  private entry(l: LabelInput): Entry {
    const k = this.key(l);
    let e = this.entries.get(k);
    if (e) {
      e.used = this.frame;
      return e;
    }
    const w = this.widthOf(l), dpr = this.dpr;
    const pw = Math.ceil(w * dpr), ph = Math.ceil(LABEL_H * dpr);
    if (this.shelfX + pw > ATLAS) {
      this.shelfX = 0;
      this.shelfY += ph + 1;
    }
    if (this.shelfY + ph > ATLAS) this.reset();
    const g = canvas2d(pw, ph);
    g.scale(dpr, dpr);
    const r = 5;
    g.fillStyle = PILL;
    g.beginPath();
    g.roundRect(0, 0, w, LABEL_H, r);
    g.fill();
    g.fillStyle = `#${l.color.toString(16).padStart(6, '0')}`;
    g.beginPath();
    g.arc(PAD_X + DOT_D / 2, LABEL_H / 2, DOT_D / 2, 0, Math.PI * 2);
    g.fill();
    g.font = FONT;
    g.fillStyle = '#ffffff';
    g.textBaseline = 'middle';
    const x = PAD_X + DOT_D + DOT_GAP, maxW = w - x - PAD_X;
    g.fillText(fitText(g, l.text, maxW), x, LABEL_H / 2 + 0.5);
    const data = g.getImageData(0, 0, pw, ph).data;
    // premultiply (the blend is premultiplied; the 2D canvas hands back straight alpha)
    const px = new Uint8Array(data.length);
    for (let i = 0; i < data.length; i += 4) {
      const a = data[i + 3]!;
      px[i] = (data[i]! * a + 127) / 255;
      px[i + 1] = (data[i + 1]! * a + 127) / 255;
      px[i + 2] = (data[i + 2]! * a + 127) / 255;
      px[i + 3] = a;
    }
    this.tex.subimage({ width: pw, height: ph, data: px }, this.shelfX, this.shelfY);
    e = { u: this.shelfX, v: this.shelfY, pw, ph, w, used: this.frame };
    this.shelfX += pw + 1;
    this.entries.set(k, e);
    return e;
  }

  /** Starts the atlas over (full, or the pixel ratio changed). */
  private reset(): void {
    this.entries.clear();
    this.shelfX = this.shelfY = 0;
    this.tex({ width: ATLAS, height: ATLAS, min: 'linear', mag: 'linear', wrapS: 'clamp', wrapT: 'clamp' });
  }

  /** Builds the quads of the labels to draw (CSS px; snapped to device px). */
  update(inputs: readonly LabelInput[], viewW: number, viewH: number, dpr: number): void {
    this.frame++;
    if (dpr !== this.dpr) {
      this.dpr = dpr;
      this.reset();
    }
    if (this.loading || !inputs.length) {
      this.count = 0;
      return;
    }
    const placed = placeLabels(inputs, this.widthOf, viewW, viewH);
    const v = new Float32Array(placed.length * 6 * 4);
    let o = 0;
    for (const p of placed) {
      const e = this.entry(p.input);
      const x0 = Math.round(p.x * dpr) / dpr, y0 = Math.round(p.y * dpr) / dpr;
      const x1 = x0 + e.pw / dpr, y1 = y0 + e.ph / dpr;
      const u0 = e.u / ATLAS, v0 = e.v / ATLAS, u1 = (e.u + e.pw) / ATLAS, v1 = (e.v + e.ph) / ATLAS;
      for (const [x, y, u, w] of [[x0, y0, u0, v0], [x1, y0, u1, v0], [x0, y1, u0, v1], [x0, y1, u0, v1], [x1, y0, u1, v0], [x1, y1, u1, v1]] as const) {
        v[o++] = x;
        v[o++] = y;
        v[o++] = u;
        v[o++] = w;
      }
    }
    this.buf(v);
    this.count = placed.length * 6;
  }

  /** Labels drawn by the last update. */
  get drawn(): number {
    return this.count / 6;
  }

  render(viewW: number, viewH: number): void {
    if (this.count) this.draw({ view: [viewW, viewH], count: this.count });
  }

  dispose(): void {
    this.tex.destroy();
    this.buf.destroy();
  }
}

/** The text cut with an ellipsis to fit `maxW` px. */
function fitText(g: Canvas2D, text: string, maxW: number): string {
  if (g.measureText(text).width <= maxW) return text;
  let lo = 0, hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (g.measureText(`${text.slice(0, mid)}…`).width <= maxW) lo = mid;
    else hi = mid - 1;
  }
  return `${text.slice(0, lo)}…`;
}
