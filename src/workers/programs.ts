// The renderer's regl draw commands (programs) and the constants of how shapes look. Uniforms
// read the renderer's state through getters at draw time, so a camera or display change is a
// new uniform value, never a rebuilt command.
import type { Buffer, DrawCommand, Elements, Regl, Texture2D } from 'regl';
import type { CameraState } from '../engine';
import { COMPACT_STRIDE, FILL_STRIDE, LINE_STRIDE } from './geometry';
import type { RenderDisplay } from './protocol';
import { DOT_STRIDE, type ChunkLevel } from './cells';
import { colorFrag, compactFrag, compactVert, dotFrag, dotVert, fillVert, imageFrag, imageFusedFrag, lineFrag, lineVert, maskFrag, maskVert, quadVert, shapesFrag } from './shaders';

/** Width of the slot state texture (one RGBA texel per shape slot: hidden, selected, hovered). */
export const STATE_W = 1024;
export const SELECTED_FILL_ALPHA = 0x1a / 255;
export const HOVER_FILL_ALPHA = 0.1;
export const HALO: [number, number, number, number] = [0.06 * 0.55, 0.07 * 0.55, 0.1 * 0.55, 0.55];
export const HANDLE_HALO = [0.1, 0.12, 0.16, 1];
/** Keypoint dot radius, CSS px (a 9 px dot; 11 px with its halo). */
export const KEYPOINT_R = 4.5;
/** Polylines are drawn at least 2 px wide: they have no fill to show them. */
const POLYLINE_HW = 1;
/** Selected outlines are this much wider. */
const SELECTED_LINE_SCALE = 1.6;
const HALO_W = 1;
/** Mask vertex: x, y (image px), corner (-1 / 1 twice), rect (4), atlas origin and steps (4), colour, slot. */
export const MASK_STRIDE = 14;

/** What the programs read at draw time. */
export interface ProgramState {
  camera(): CameraState;
  size(): { width: number; height: number; dpr: number };
  stateTex(): Texture2D;
  stateRows(): number;
  transparency(): number;
  display(): RenderDisplay;
  /** The fused frame's shapes texture and where a fragment's texel is (fused.ts). */
  fused(): { tex: Texture2D | null; at: number[] };
  /** CSS px at the view's edges that are scissored away (a band of a fused texture: its viewport grown past the scissor); 0 otherwise. */
  inset(): number;
}

export interface Programs {
  fill: DrawCommand;
  line: DrawCommand;
  compact: DrawCommand;
  dots: DrawCommand;
  image: DrawCommand;
  /** The image with the shapes' texture composited in the same pass, and that texture alone where no image is (fused.ts). */
  imageFused: DrawCommand;
  shapesTexture: DrawCommand;
  mask: DrawCommand;
  /** The camera and view uniforms, for other commands drawing in image px (impostors). */
  cam: { u_cam: () => number[]; u_view: () => number[] };
}

/** The draw commands; `quad` is the unit quad of image tiles, `maskBuf` the masks' vertex buffer. */
export function createPrograms(regl: Regl, quad: Buffer, maskBuf: Buffer, state: ProgramState): Programs {
  const cam = {
    u_cam: () => {
      const c = state.camera();
      return [c.scale, c.x, c.y];
    },
    u_view: () => {
      const { width, height } = state.size();
      return [width, height];
    },
    u_state: () => state.stateTex(),
    u_stateSize: () => [STATE_W, state.stateRows()],
  };
  const blend = { enable: true, func: { src: 'one', dst: 'one minus src alpha' } } as const;
  const F = 4;
  /** Float attributes interleaved in the draw's `buf`: name -> offset in floats. */
  const fromBuf = (stride: number, offsets: Record<string, number>) =>
    Object.fromEntries(Object.entries(offsets).map(([name, at]) => [name, { buffer: regl.prop<any, 'buf'>('buf'), stride: stride * F, offset: at * F }]));
  const alpha = () => 1 - state.transparency() / 100;
  /** Half width of outlines (CSS px) from the display setting. */
  const lineHw = () => state.display().outlineWidth / 2;
  const fillAlpha = { u_alpha: alpha, u_selAlpha: SELECTED_FILL_ALPHA, u_hoverAlpha: HOVER_FILL_ALPHA };
  const fill = regl({
    vert: fillVert,
    frag: colorFrag,
    attributes: fromBuf(FILL_STRIDE, { a_pos: 0, a_color: 2, a_slot: 3 }),
    uniforms: { ...cam, ...fillAlpha },
    elements: regl.prop<any, 'idx'>('idx'),
    offset: regl.prop<any, 'offset'>('offset'),
    count: regl.prop<any, 'count'>('count'),
    blend,
    depth: { enable: false },
  });
  const line = regl({
    vert: lineVert,
    frag: lineFrag,
    attributes: fromBuf(LINE_STRIDE, { a_pos: 0, a_off: 2, a_side: 4, a_color: 5, a_slot: 6 }),
    uniforms: {
      ...cam,
      u_hw: lineHw,
      u_polyHw: POLYLINE_HW,
      u_kpR: KEYPOINT_R,
      u_halo: (_: unknown, p: { haloW?: number; round?: boolean }) => p.haloW ?? HALO_W,
      u_round: (_: unknown, p: { haloW?: number; round?: boolean }) => (p.round ? 1 : 0),
      u_selScale: SELECTED_LINE_SCALE,
      u_marker: regl.prop<any, 'marker'>('marker'),
      u_haloColor: regl.prop<any, 'halo'>('halo'),
    },
    elements: regl.prop<any, 'idx'>('idx'),
    offset: regl.prop<any, 'offset'>('offset'),
    count: regl.prop<any, 'count'>('count'),
    blend,
    depth: { enable: false },
  });
  const compact = regl({
    vert: compactVert,
    frag: compactFrag,
    attributes: fromBuf(COMPACT_STRIDE, { a_pos: 0, a_color: 2, a_slot: 3, a_dist: 4 }),
    uniforms: {
      ...cam,
      ...fillAlpha,
      u_hw: lineHw,
      u_selScale: SELECTED_LINE_SCALE,
      u_halo: HALO_W,
      u_haloColor: HALO,
    },
    offset: regl.prop<any, 'offset'>('offset'),
    count: regl.prop<any, 'count'>('count'),
    primitive: 'triangles',
    blend,
    depth: { enable: false },
  });
  const dots = regl({
    vert: dotVert,
    frag: dotFrag,
    attributes: fromBuf(DOT_STRIDE, { a_pos: 0, a_half: 2, a_color: 4, a_slot: 5 }),
    uniforms: { ...cam, u_alpha: alpha, u_dpr: () => state.size().dpr, u_inset: () => state.inset() },
    offset: regl.prop<any, 'offset'>('offset'),
    count: regl.prop<any, 'count'>('count'),
    primitive: 'points',
    blend,
    depth: { enable: false },
  });
  const quadAttrs = { a_uv: quad };
  const quadUniforms = {
    u_cam: cam.u_cam,
    u_view: cam.u_view,
    u_rect: regl.prop<any, 'rect'>('rect'),
    u_uv: regl.prop<any, 'uv'>('uv'),
    u_tex: regl.prop<any, 'tex'>('tex'),
    u_adjust: () => {
      const d = state.display();
      return [d.brightness, d.contrast, d.gamma];
    },
  };
  const image = regl({ vert: quadVert, frag: imageFrag, attributes: quadAttrs, uniforms: quadUniforms, count: 6, depth: { enable: false } });
  const fusedUniforms = { u_shapes: () => state.fused().tex, u_shapesAt: () => state.fused().at };
  const imageFused = regl({ vert: quadVert, frag: imageFusedFrag, attributes: quadAttrs, uniforms: { ...quadUniforms, ...fusedUniforms }, count: 6, depth: { enable: false } });
  const shapesTexture = regl({
    vert: quadVert,
    frag: shapesFrag,
    attributes: quadAttrs,
    uniforms: { u_cam: cam.u_cam, u_view: cam.u_view, u_rect: regl.prop<any, 'rect'>('rect'), u_uv: [0, 0, 1, 1], ...fusedUniforms },
    count: 6,
    blend,
    depth: { enable: false },
  });
  const M = MASK_STRIDE * F;
  const mask = regl({
    vert: maskVert,
    frag: maskFrag,
    attributes: {
      a_pos: { buffer: maskBuf, stride: M, offset: 0 },
      a_corner: { buffer: maskBuf, stride: M, offset: 2 * F },
      a_rect: { buffer: maskBuf, stride: M, offset: 4 * F },
      a_uv: { buffer: maskBuf, stride: M, offset: 8 * F },
      a_color: { buffer: maskBuf, stride: M, offset: 12 * F },
      a_slot: { buffer: maskBuf, stride: M, offset: 13 * F },
    },
    uniforms: {
      ...cam,
      u_tex: regl.prop<any, 'tex'>('tex'),
      u_lineW: () => state.display().outlineWidth,
      u_halo: HALO_W,
      u_haloColor: HALO,
      u_selScale: SELECTED_LINE_SCALE,
      u_alpha: alpha,
      u_selAlpha: () => Math.max(SELECTED_FILL_ALPHA, alpha() * 0.5),
      u_hoverAlpha: HOVER_FILL_ALPHA,
    },
    offset: regl.prop<any, 'offset'>('offset'),
    count: regl.prop<any, 'count'>('count'),
    blend,
    depth: { enable: false },
  });
  return { fill, line, compact, dots, image, imageFused, shapesTexture, mask, cam };
}

type First = { fill?: readonly [Buffer, Elements, number]; line?: readonly [Buffer, Elements, number]; dots?: readonly [Buffer, number]; compact?: readonly [Buffer, number] };

/** Draws the first primitive of each pass's buffer from the offset given (into the bound target). */
function drawFirst(p: Programs, f: First): void {
  if (f.fill) p.fill([{ buf: f.fill[0], idx: f.fill[1], offset: f.fill[2], count: 3 }]);
  if (f.dots) p.dots([{ buf: f.dots[0], offset: f.dots[1], count: 1 }]);
  if (f.compact) p.compact([{ buf: f.compact[0], offset: f.compact[1], count: 3 }]);
  if (f.line) p.line([{ buf: f.line[0], idx: f.line[1], offset: f.line[2], count: 3, marker: 3, halo: HALO }]);
}

/**
 * Draws one pixel with each shape program (then clears): software WebGL compiles a program's
 * routines at its first draw (10-20 ms), which otherwise lands on the first zoom frame that
 * needs it.
 */
export function warmPrograms(regl: Regl, p: Programs): void {
  const tri = (stride: number, extra: number[]) => regl.buffer(new Float32Array([0, 0, 0, -1, ...extra, 1, 0, 0, -1, ...extra, 0, 1, 0, -1, ...extra].slice(0, 3 * stride)));
  const fill = tri(FILL_STRIDE, []), line = tri(LINE_STRIDE, [0, 0, 0]), compact = tri(COMPACT_STRIDE, [0, 0, 0]);
  const dots = regl.buffer(new Float32Array([0.5, 0.5, 0.5, 0.5, 0, -1]));
  const idx = regl.elements({ data: new Uint32Array([0, 1, 2]), type: 'uint32', primitive: 'triangles' });
  drawFirst(p, { fill: [fill, idx, 0], line: [line, idx, 0], dots: [dots, 0], compact: [compact, 0] });
  regl.clear({ color: [0, 0, 0, 1] });
  for (const r of [fill, line, compact, dots, idx]) r.destroy();
}

/** Draws a few vertices of each of a level's ranges (into the bound target: the renderer's 1 x 1 warm-up target). */
export function drawLevelFirst(p: Programs, l: ChunkLevel): void {
  const idx = (v: ChunkLevel['fillV'], i: ChunkLevel['fillI']) => (v && i ? ([v.page.buf as Buffer, i.page.buf as Elements, i.start] as const) : undefined);
  const at = (r: ChunkLevel['dots']) => (r ? ([r.page.buf as Buffer, r.start] as const) : undefined);
  drawFirst(p, { fill: idx(l.fillV, l.fillI), line: idx(l.lineV, l.lineI), dots: at(l.dots), compact: at(l.compact) });
}
