// The renderer shared by the render worker and the main-thread fallback: regl on a WebGL
// context of an OffscreenCanvas or an HTMLCanvasElement.
//
// Shapes live in spatial cells (CELL x CELL image px, by the centre of the shape's bounds);
// each cell owns its GPU buffers, built lazily (concatenating the cached per-shape arrays) when
// the cell is first drawn after a change. A frame draws only the cells whose bounds meet the
// viewport. Level of detail: at a zoom where a shape is smaller than LOD_PX on screen it is drawn
// as one point sprite over its bounds instead of its triangulation and outline (at 100k shapes
// zoomed out most shapes are a few pixels; their outlines were most of the frame); a polygon under
// COMPACT_PX is drawn compact: rings simplified to a screen px, fill triangles only, the
// outline drawn inside them by the shader (a full outline is two triangles per segment, and
// software WebGL pays per triangle). A cell keeps its buffers per half-octave zoom level it was
// drawn at (the last few), until it changes. Selection,
// hover and hidden state live in a small RGBA texture indexed by slot, so view changes upload a
// few bytes and never touch geometry; a pan or zoom changes only the camera uniform.
//
// No MSAA: software WebGL (SwiftShader) spent ~80% of a frame resolving 4x samples; outlines
// smooth their own outer edge in the shader and cover the fill edges.
import createREGL, { type Buffer, type DrawCommand, type Elements, type Framebuffer2D, type Regl, type Texture2D } from 'regl';
import type { CameraState } from '../engine';
import { loadKernels, type Kernels } from '../kernels';
import { COMPACT_STRIDE, FILL_STRIDE, LINE_STRIDE, boxGeometry, compactPolygon, handleGeometry, keypointGeometry, lineOut, polygonGeometry, polylineGeometry, pushRing, type ShapeGeometry } from './geometry';
import { DEFAULT_DISPLAY, type ImageSourceMsg, type PackedScene, type RenderDisplay, type RenderStats, type RenderView, type RendererOptions, type TileLevel } from './protocol';
import { LabelLayer, MAX_LABELS, MAX_VISIBLE, type LabelInput } from './labels';
import { PROMPT_POINT_HALO, PROMPT_POINT_R, proposalGeometry } from './proposal';
import { MaskAtlases, type Atlas, type MaskPlace } from './masks';
import { colorFrag, compactFrag, compactVert, dotFrag, dotVert, fillVert, imageFrag, lineFrag, lineVert, maskFrag, maskVert, quadVert } from './shaders';
import { ImageLayer, openSource, type TileSource } from './tiles';

/** Side of a spatial cell in image px. */
export const CELL = 1024;
/**
 * Dots and compact polygons are kept in the cell's buffers by sub-cell (SUB x SUB per cell, by the
 * centre of a shape's bounds), so a cell at the edge of the view draws only its sub-cells in view:
 * zoomed in to where shapes are ~10 px, about half of what the visible cells held was off screen.
 */
const SUB = 4;
/** Shapes smaller than this on screen (CSS px) are drawn as one dot (a point sprite over their bounds). */
export const LOD_PX = 8;
/** Polygons smaller than this on screen (CSS px) are drawn compact (see compactPolygon). */
export const COMPACT_PX = 24;
/** Simplification tolerance of compact polygons, in screen px at their level. */
const COMPACT_TOLERANCE_PX = 1;
/** Level buffers a cell keeps (least recently drawn dropped first). */
const MAX_LEVELS = 6;
/**
 * A cell that has buffers for another zoom level draws those (the nearest) until its buffers for
 * the new level are built between frames, BUILD_SLICE_MS at a time, then the view is redrawn:
 * building them in the frame that crossed a level was 40-60 ms at 10k shapes. A cell with no
 * buffers yet builds them in the frame.
 */
const BUILD_SLICE_MS = 6;
const STATE_W = 1024;
export const SELECTED_FILL_ALPHA = 0x1a / 255;
export const HOVER_FILL_ALPHA = 0.1;
const HALO: [number, number, number, number] = [0.06 * 0.55, 0.07 * 0.55, 0.1 * 0.55, 0.55];
const HANDLE_HALO = [0.1, 0.12, 0.16, 1];
/** Keypoint dot radius, CSS px (a 9 px dot; 11 px with its halo). */
export const KEYPOINT_R = 4.5;
/** Polylines are drawn at least 2 px wide: they have no fill to show them. */
const POLYLINE_HW = 1;
/** Selected outlines are this much wider. */
const SELECTED_LINE_SCALE = 1.6;
const HALO_W = 1;
const MAX_HANDLE_SHAPES = 2000;
/** Dot vertex: centre x, y, half width, half height (image px), colour, slot. */
const DOT_STRIDE = 6;
/** Mask vertex: x, y (image px), corner (-1 / 1 twice), rect (4), atlas origin and steps (4), colour, slot. */
const MASK_STRIDE = 14;

interface MaskEntry {
  place: MaskPlace | null;
  rect: [number, number, number, number];
}

interface Shape {
  id: string;
  z: number;
  type: number;
  color: number;
  slot: number;
  geom: ShapeGeometry;
  /** Ring lengths of a polygon (its vertices are geom.handles), else null. */
  rings: Uint32Array | null;
  mask: MaskEntry | null;
  /** Bounds in image px: minX, minY, maxX, maxY. */
  bounds: [number, number, number, number];
  chunk: Chunk | null;
  /** Class name (its label). */
  label: string;
}

/** GPU buffers of one cell at one level of detail (counts are indices). */
interface ChunkLevel {
  fill: Buffer;
  fillIdx: Elements;
  line: Buffer;
  lineIdx: Elements;
  /** Compact polygons (unindexed triangles), or null. */
  compact: Buffer | null;
  /** Shapes drawn as dots (points), or null. */
  dots: Buffer | null;
  fillCount: number;
  lineCount: number;
  bytes: number;
  /** Frame number of the last draw (for dropping the least recently drawn level). */
  used: number;
  /** Per sub-cell: the bounds of its dots and compact polygons (4 numbers each), and where they start (in vertices; SUB * SUB + 1 entries). */
  subBounds: Float32Array;
  dotStart: Uint32Array;
  compactStart: Uint32Array;
}

type ChunkOverlay = { buf: Buffer; idx: Elements; count: number };

function destroyLevel(l: ChunkLevel): void {
  l.fill.destroy();
  l.fillIdx.destroy();
  l.line.destroy();
  l.lineIdx.destroy();
  l.compact?.destroy();
  l.dots?.destroy();
}

interface Chunk {
  key: number;
  /** Top-left corner of the cell in image px. */
  x0: number;
  y0: number;
  shapes: Set<Shape>;
  /** Union of the shapes' bounds (recomputed when the cell changes). */
  bounds: [number, number, number, number];
  /** Smallest max(width, height) of a shape that can be drawn as a dot or compact; Infinity if none. */
  minExtent: number;
  /** Buffers by level (FULL or a power-of-two zoom exponent), built on first draw. */
  levels: Map<number, ChunkLevel>;
  dirty: boolean;
}

const FULL = 1000;
/** Longest an image swap keeps the previous frame on the canvas before drawing without it. */
export const HOLD_MAX_MS = 1500;
/** Images kept opened for a swap (the neighbours preloaded, the ones shown before), least recently used dropped first. */
const MAX_PRELOADED = 3;
/** A kept image older than this is opened again (a pyramid's signed tile URLs expire within the hour). */
const PRELOAD_TTL_MS = 30 * 60_000;
/** How long preloading may wait for the textures of its view. */
const PRELOAD_PRIME_MS = 20_000;

type Canvas = OffscreenCanvas | HTMLCanvasElement;

export class Renderer {
  private readonly regl: Regl;
  private readonly gl: WebGLRenderingContext;
  readonly maxTextureSize: number;
  private width: number;
  private height: number;
  private dpr: number;
  private camera: CameraState = { x: 0, y: 0, scale: 1 };
  private view: RenderView = { selected: [], hidden: [], hovered: null, transparency: 50, drawing: null, marquee: null };
  private display: RenderDisplay = { ...DEFAULT_DISPLAY };
  private readonly labels: LabelLayer;
  private selected = new Set<string>();
  private hidden = new Set<string>();
  private readonly shapes = new Map<string, Shape>();
  private readonly bySlot: (Shape | undefined)[] = [];
  private readonly chunks = new Map<number, Chunk>();
  private nextSlot = 0;
  private stateData = new Uint8Array(STATE_W * 4 * 4);
  private stateRows = 4;
  private readonly stateTex: Texture2D;
  private stateDirty = true;
  private masks: Shape[] = [];
  private masksSorted = true;
  /** The masks' quads (z order), rebuilt when a mask is added, removed or decoded. */
  private masksDirty = false;
  private readonly maskAtlases: MaskAtlases;
  private readonly maskBuf: Buffer;
  /** Runs of consecutive masks (z order) in one atlas: one draw each. */
  private maskRuns: { atlas: Atlas; offset: number; count: number }[] = [];
  private readonly maskQueue: Shape[] = [];
  private kernels: Kernels | null = null;
  private kernelsLoading: Promise<Kernels> | null = null;
  private image: ImageLayer | null = null;
  private imageLoading: Promise<void> | null = null;
  /** The last setImage() (an earlier one still loading is dropped when it is done). */
  private imageToken = 0;
  /** No frame is drawn while held (an image swap in progress), see hold(). */
  private held = false;
  private holdTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly frameWaiters: (() => void)[] = [];
  /** When the last frame was drawn: epoch ms (performance.timeOrigin based, comparable across realms). */
  private lastFrameAt = 0;
  /** The key of the image shown (setImage's), and images opened ahead by key (see preload). */
  private imageKey: string | undefined;
  private readonly preloaded = new Map<string, { at: number; layer: Promise<ImageLayer | null> }>();
  private readonly overlay: { buf: Buffer; idx: Elements; count: number }[];
  private overlayDirty = true;
  private frameRequested = false;
  /** An animation frame callback is on its way (requestFrame). */
  private framePending = false;
  /** Cells drawn at a stand-in level, with the level they want (built between frames). */
  private readonly pendingBuilds = new Map<Chunk, number>();
  private buildTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly idleWaiters: (() => void)[] = [];
  private readonly quad: Buffer;
  private readonly drawFill: DrawCommand;
  private readonly drawLine: DrawCommand;
  private readonly drawCompact: DrawCommand;
  private readonly drawDots: DrawCommand;
  /**
   * A 1 x 1 target where new buffers and textures are drawn once between frames: software WebGL
   * does per-resource work at a resource's first draw (~1 ms a tile texture), which otherwise
   * lands in the frame that shows it.
   */
  private readonly warmTarget: Framebuffer2D;
  private readonly drawImage: DrawCommand;
  private readonly drawMask: DrawCommand;
  private readonly background: [number, number, number];
  private disposed = false;
  /** Frame durations (ms, including a GPU finish when `measure` is on). */
  readonly frameTimes: number[] = [];
  measure = false;
  private readonly probe = new Uint8Array(4);
  private s = { frames: 0, lastFrameMs: 0, lastSceneMs: 0, maskDecodeMs: 0, kernelsLoadMs: 0, imageLoadMs: 0, culledChunks: 0, buildMs: 0 };

  constructor(
    private readonly canvas: Canvas,
    private readonly options: RendererOptions,
    readonly backend: 'worker' | 'main',
  ) {
    this.width = options.width;
    this.height = options.height;
    this.dpr = options.dpr;
    this.background = options.background ?? [0x1b / 255, 0x1f / 255, 0x2a / 255];
    const gl = canvas.getContext('webgl', { alpha: false, antialias: false, premultipliedAlpha: true, preserveDrawingBuffer: false, depth: false, stencil: false }) as WebGLRenderingContext | null;
    if (!gl) throw new Error('WebGL is not available');
    this.gl = gl;
    this.regl = createREGL({ gl, extensions: ['OES_element_index_uint'] });
    const glMaxTexture = gl.getParameter(gl.MAX_TEXTURE_SIZE) as number;
    this.maxTextureSize = Math.min(glMaxTexture, options.maxTextureSize ?? 4096);
    this.resize(options.width, options.height, options.dpr);
    const regl = this.regl;
    this.stateTex = regl.texture({ width: STATE_W, height: this.stateRows, data: this.stateData, min: 'nearest', mag: 'nearest' });
    // overlay: [0] fill, [1] outlines, [2] handles, [3] Auto-Annotate's points
    this.overlay = [0, 1, 2, 3].map(() => ({
      buf: regl.buffer({ usage: 'dynamic', type: 'float', length: 0 }),
      idx: regl.elements({ data: new Uint32Array(0), type: 'uint32', primitive: 'triangles', usage: 'dynamic' }),
      count: 0,
    }));
    this.quad = regl.buffer(new Float32Array([0, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 1]));
    this.maskAtlases = new MaskAtlases(regl, Math.min(2048, this.maxTextureSize), glMaxTexture);
    this.maskBuf = regl.buffer({ usage: 'dynamic', type: 'float', length: 0 });
    const cam = {
      u_cam: () => [this.camera.scale, this.camera.x, this.camera.y],
      u_view: () => [this.width, this.height],
      u_state: () => this.stateTex,
      u_stateSize: () => [STATE_W, this.stateRows],
    };
    const blend = { enable: true, func: { src: 'one', dst: 'one minus src alpha' } } as const;
    const F = 4;
    /** Float attributes interleaved in the draw's `buf`: name -> offset in floats. */
    const fromBuf = (stride: number, offsets: Record<string, number>) =>
      Object.fromEntries(Object.entries(offsets).map(([name, at]) => [name, { buffer: regl.prop<any, 'buf'>('buf'), stride: stride * F, offset: at * F }]));
    const alpha = () => 1 - this.view.transparency / 100;
    const fillAlpha = { u_alpha: alpha, u_selAlpha: SELECTED_FILL_ALPHA, u_hoverAlpha: HOVER_FILL_ALPHA };
    this.drawFill = regl({
      vert: fillVert,
      frag: colorFrag,
      attributes: fromBuf(FILL_STRIDE, { a_pos: 0, a_color: 2, a_slot: 3 }),
      uniforms: { ...cam, ...fillAlpha },
      elements: regl.prop<any, 'idx'>('idx'),
      count: regl.prop<any, 'count'>('count'),
      blend,
      depth: { enable: false },
    });
    this.drawLine = regl({
      vert: lineVert,
      frag: lineFrag,
      attributes: fromBuf(LINE_STRIDE, { a_pos: 0, a_off: 2, a_side: 4, a_color: 5, a_slot: 6 }),
      uniforms: {
        ...cam,
        u_hw: () => this.lineHw(),
        u_polyHw: POLYLINE_HW,
        u_kpR: KEYPOINT_R,
        u_halo: (_: unknown, p: { haloW?: number; round?: boolean }) => p.haloW ?? HALO_W,
        u_round: (_: unknown, p: { haloW?: number; round?: boolean }) => (p.round ? 1 : 0),
        u_selScale: SELECTED_LINE_SCALE,
        u_marker: regl.prop<any, 'marker'>('marker'),
        u_haloColor: regl.prop<any, 'halo'>('halo'),
      },
      elements: regl.prop<any, 'idx'>('idx'),
      count: regl.prop<any, 'count'>('count'),
      blend,
      depth: { enable: false },
    });
    this.drawCompact = regl({
      vert: compactVert,
      frag: compactFrag,
      attributes: fromBuf(COMPACT_STRIDE, { a_pos: 0, a_color: 2, a_slot: 3, a_dist: 4 }),
      uniforms: {
        ...cam,
        ...fillAlpha,
        u_hw: () => this.lineHw(),
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
    this.drawDots = regl({
      vert: dotVert,
      frag: dotFrag,
      attributes: fromBuf(DOT_STRIDE, { a_pos: 0, a_half: 2, a_color: 4, a_slot: 5 }),
      uniforms: { ...cam, u_alpha: alpha, u_dpr: () => this.dpr },
      offset: regl.prop<any, 'offset'>('offset'),
      count: regl.prop<any, 'count'>('count'),
      primitive: 'points',
      blend,
      depth: { enable: false },
    });
    const quadAttrs = { a_uv: this.quad };
    const quadUniforms = {
      u_cam: cam.u_cam,
      u_view: cam.u_view,
      u_rect: regl.prop<any, 'rect'>('rect'),
      u_uv: regl.prop<any, 'uv'>('uv'),
      u_tex: regl.prop<any, 'tex'>('tex'),
      u_adjust: () => [this.display.brightness, this.display.contrast, this.display.gamma],
    };
    this.drawImage = regl({ vert: quadVert, frag: imageFrag, attributes: quadAttrs, uniforms: quadUniforms, count: 6, depth: { enable: false } });
    const M = MASK_STRIDE * F;
    this.drawMask = regl({
      vert: maskVert,
      frag: maskFrag,
      attributes: {
        a_pos: { buffer: this.maskBuf, stride: M, offset: 0 },
        a_corner: { buffer: this.maskBuf, stride: M, offset: 2 * F },
        a_rect: { buffer: this.maskBuf, stride: M, offset: 4 * F },
        a_uv: { buffer: this.maskBuf, stride: M, offset: 8 * F },
        a_color: { buffer: this.maskBuf, stride: M, offset: 12 * F },
        a_slot: { buffer: this.maskBuf, stride: M, offset: 13 * F },
      },
      uniforms: {
        ...cam,
        u_tex: regl.prop<any, 'tex'>('tex'),
        u_lineW: () => this.display.outlineWidth,
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
    this.warmTarget = regl.framebuffer({ width: 1, height: 1, depthStencil: false });
    this.labels = new LabelLayer(regl, () => this.requestFrame());
    this.warmUp();
    this.requestFrame();
  }

  /**
   * Draws one pixel with each shape program (then clears): software WebGL compiles a program's
   * routines at its first draw (10-20 ms), which otherwise lands on the first zoom frame that
   * needs it.
   */
  private warmUp(): void {
    const regl = this.regl;
    const tri = (stride: number, extra: number[]) => regl.buffer(new Float32Array([0, 0, 0, -1, ...extra, 1, 0, 0, -1, ...extra, 0, 1, 0, -1, ...extra].slice(0, 3 * stride)));
    const fill = tri(FILL_STRIDE, []), line = tri(LINE_STRIDE, [0, 0, 0]), compact = tri(COMPACT_STRIDE, [0, 0, 0]);
    const dots = regl.buffer(new Float32Array([0.5, 0.5, 0.5, 0.5, 0, -1]));
    const idx = regl.elements({ data: new Uint32Array([0, 1, 2]), type: 'uint32', primitive: 'triangles' });
    this.drawFirst({ fill, fillIdx: idx, fillCount: 3, line, lineIdx: idx, lineCount: 3, dots, compact });
    regl.clear({ color: [0, 0, 0, 1] });
    for (const r of [fill, line, compact, dots, idx]) r.destroy();
  }

  // ------------------------------------------------------------------ inputs

  resize(width: number, height: number, dpr: number): void {
    this.width = width;
    this.height = height;
    this.dpr = dpr;
    const w = Math.max(1, Math.round(width * dpr)), h = Math.max(1, Math.round(height * dpr));
    if (this.canvas.width !== w) this.canvas.width = w;
    if (this.canvas.height !== h) this.canvas.height = h;
    this.requestFrame();
  }

  setCamera(c: CameraState): void {
    this.camera = { x: c.x, y: c.y, scale: c.scale };
    this.requestFrame();
  }

  /**
   * Swaps the image. The canvas keeps its last frame (no frame is drawn: the previous image with
   * its shapes) while the new source opens, its texture is made and the textures the view needs
   * first (a reduced level, the tiles in view) are in, at most HOLD_MAX_MS; then the old image's
   * textures go and the next frame draws the new one. Resolves after that frame.
   */
  async setImage(msg: ImageSourceMsg, key?: string): Promise<number> {
    // The same image again (its key: an image's pixels never change): nothing to open.
    if (key !== undefined && key === this.imageKey && this.image && !this.imageLoading) {
      await this.nextFrame();
      return this.lastFrameAt;
    }
    this.hold();
    const token = ++this.imageToken;
    const ti = performance.now();
    const kept = key !== undefined ? this.takePreloaded(key) : undefined;
    const p = (async () => {
      const current = () => !this.disposed && token === this.imageToken;
      let next = kept ? await kept.catch(() => null) : null;
      if (!next) {
        const source = await openSource(msg);
        if (!current()) return source?.close();
        next = source ? this.newLayer(source) : null;
      }
      try {
        if (next) {
          await next.whenSingleReady();
          await this.prime(next, this.camera, ti + HOLD_MAX_MS);
        }
      } catch (err) {
        next?.dispose();
        throw err;
      }
      if (!current()) return next?.dispose();
      // The image left is kept for a while (going back swaps at once), unless it had no key.
      const old = this.image;
      if (old && this.imageKey !== undefined && this.imageKey !== key) this.keep(this.imageKey, Promise.resolve(old));
      else old?.dispose();
      this.image = next;
      this.imageKey = key;
      this.s.imageLoadMs = performance.now() - ti;
    })();
    this.imageLoading = p;
    try {
      await p;
    } finally {
      if (this.imageLoading === p) this.imageLoading = null;
      if (token === this.imageToken) this.release();
      this.requestFrame();
    }
    // The swap's frame is drawn now, not at the next animation frame (up to 16 ms later): the
    // canvas shows it when this task ends.
    const drawn = this.nextFrame();
    if (this.frameRequested && !this.held) this.frame();
    await drawn;
    return this.lastFrameAt;
  }

  /** Opens an image ahead under `key` (protocol.ts), with the textures of `camera`'s view. */
  preload(key: string, msg: ImageSourceMsg, camera: CameraState): void {
    if (key === this.imageKey && this.image) return;
    const had = this.preloaded.get(key);
    if (had && performance.now() - had.at < PRELOAD_TTL_MS) {
      this.preloaded.delete(key);
      this.preloaded.set(key, had); // most recent
      return;
    }
    const layer = (async () => {
      const source = await openSource(msg);
      if (!source || this.disposed) {
        source?.close();
        return null;
      }
      const l = this.newLayer(source);
      await l.whenSingleReady();
      await this.prime(l, camera, performance.now() + PRELOAD_PRIME_MS);
      return l;
    })();
    layer.catch(() => {
      if (this.preloaded.get(key)?.layer === layer) this.preloaded.delete(key);
    });
    this.keep(key, layer);
  }

  private keep(key: string, layer: Promise<ImageLayer | null>): void {
    const had = this.preloaded.get(key);
    this.preloaded.delete(key);
    if (had && had.layer !== layer) this.dropLayer(had.layer);
    this.preloaded.set(key, { at: performance.now(), layer });
    while (this.preloaded.size > MAX_PRELOADED) {
      const [k, e] = this.preloaded.entries().next().value!;
      this.preloaded.delete(k);
      this.dropLayer(e.layer);
    }
  }

  private takePreloaded(key: string): Promise<ImageLayer | null> | undefined {
    const e = this.preloaded.get(key);
    if (!e) return undefined;
    this.preloaded.delete(key);
    if (performance.now() - e.at < PRELOAD_TTL_MS) return e.layer;
    this.dropLayer(e.layer);
    return undefined;
  }

  private dropLayer(layer: Promise<ImageLayer | null>): void {
    void layer.then((l) => l?.dispose(), () => undefined);
  }

  private newLayer(source: TileSource): ImageLayer {
    return new ImageLayer(this.regl, source, this.maxTextureSize, this.options.tileSize ?? 512, this.options.maxTiles ?? 160, () => this.requestFrameWhenLoaded(), (tex) => {
      // one texel over the whole 1 x 1 target
      this.warmTarget.use(() => this.drawImage({ tex, rect: [-1e7, -1e7, 2e7, 2e7], uv: [0, 0, 1, 1] }));
    });
  }

  /** Asks for the textures `layer` needs for `camera`'s view and waits for them (until `until`). */
  private async prime(layer: ImageLayer, camera: CameraState, until: number): Promise<void> {
    for (;;) {
      layer.visible(camera, this.width, this.height, this.dpr);
      if (layer.pending === 0 || this.disposed || performance.now() > until) return;
      await new Promise((r) => setTimeout(r, 4));
    }
  }

  /** Draws no frame (the canvas keeps the last one) until release(), at most HOLD_MAX_MS. */
  hold(): void {
    this.held = true;
    if (this.holdTimer !== null) clearTimeout(this.holdTimer);
    this.holdTimer = setTimeout(() => {
      // Too long: draw without the old image (and with the new one when it is in).
      if (this.imageLoading) {
        const old = this.image;
        this.image = null;
        if (old && this.imageKey !== undefined) this.keep(this.imageKey, Promise.resolve(old));
        else old?.dispose();
        this.imageKey = undefined;
      }
      this.release();
    }, HOLD_MAX_MS);
  }

  private release(): void {
    if (this.holdTimer !== null) clearTimeout(this.holdTimer);
    this.holdTimer = null;
    if (!this.held) return;
    this.held = false;
    this.requestFrame();
  }

  /** Resolves after the next frame drawn. */
  private nextFrame(): Promise<void> {
    if (this.disposed) return Promise.resolve();
    return new Promise((resolve) => {
      this.frameWaiters.push(resolve);
      this.requestFrame();
    });
  }

  /** The image's tile URLs signed anew (a pyramid's URLs expire within the hour). */
  renewTiles(levels: TileLevel[]): void {
    this.image?.source.renew?.(levels);
  }

  setView(v: RenderView): void {
    const sel = new Set(v.selected), hid = new Set(v.hidden);
    const touched = new Set<string>();
    for (const id of this.selected) if (!sel.has(id)) touched.add(id);
    for (const id of sel) if (!this.selected.has(id)) touched.add(id);
    for (const id of this.hidden) if (!hid.has(id)) touched.add(id);
    for (const id of hid) if (!this.hidden.has(id)) touched.add(id);
    if (this.view.hovered !== v.hovered) {
      if (this.view.hovered) touched.add(this.view.hovered);
      if (v.hovered) touched.add(v.hovered);
    }
    this.view = v;
    this.selected = sel;
    this.hidden = hid;
    for (const id of touched) {
      const s = this.shapes.get(id);
      if (s) this.writeState(s);
    }
    this.overlayDirty = true;
    this.requestFrame();
  }

  setDisplay(d: RenderDisplay): void {
    this.display = { ...d, outlineWidth: Math.max(0.5, Math.min(6, d.outlineWidth)), gamma: Math.max(0.05, d.gamma) };
    this.requestFrame();
  }

  /** Half width of outlines (CSS px) from the display setting. */
  private lineHw(): number {
    return this.display.outlineWidth / 2;
  }

  applyScene(p: PackedScene): void {
    const t0 = performance.now();
    if (p.reset) this.clearShapes();
    for (const id of p.removed) this.removeShape(id);
    let ringAt = 0, coordAt = 0;
    const maskOf = new Map<number, PackedScene['masks'][number]>();
    for (const m of p.masks) maskOf.set(m.index, m);
    for (let i = 0; i < p.ids.length; i++) {
      const id = p.ids[i]!;
      let s = this.shapes.get(id);
      const type = p.types[i]!, color = p.colors[i]!;
      const slot = s ? s.slot : this.allocSlot();
      const rx = p.rect[4 * i]!, ry = p.rect[4 * i + 1]!, rw = p.rect[4 * i + 2]!, rh = p.rect[4 * i + 3]!;
      let geom: ShapeGeometry;
      let ringLens: Uint32Array | null = null;
      const rings = p.ringCounts[i]!;
      if (type === 1 || type === 2) {
        let pts = 0;
        for (let r = 0; r < rings; r++) pts += p.ringLens[ringAt + r]!;
        const coords = p.coords.subarray(coordAt, coordAt + pts * 2);
        if (type === 1) ringLens = p.ringLens.slice(ringAt, ringAt + rings);
        geom = ringLens ? polygonGeometry(coords, ringLens, color, slot) : polylineGeometry(coords, pts, color, slot);
        ringAt += rings;
        coordAt += pts * 2;
      } else if (type === 3) {
        geom = keypointGeometry(rx, ry, color, slot);
      } else if (type === 0) {
        geom = boxGeometry(rx, ry, rw, rh, color, slot);
      } else {
        geom = { fill: new Float32Array(0), fillIdx: new Uint32Array(0), line: new Float32Array(0), lineIdx: new Uint32Array(0), handles: new Float32Array([rx, ry, rx + rw, ry, rx + rw, ry + rh, rx, ry + rh]) };
      }
      const bounds = boundsOf(type, rx, ry, rw, rh, geom.handles);
      const label = p.names[p.nameIdx[i]!] ?? '';
      if (s) {
        if (s.mask) this.dropMask(s);
        s.z = p.z[i]!;
        s.type = type;
        s.color = color;
        s.geom = geom;
        s.rings = ringLens;
        s.bounds = bounds;
        s.label = label;
      } else {
        s = { id, z: p.z[i]!, type, color, slot, geom, rings: ringLens, mask: null, bounds, chunk: null, label };
        this.shapes.set(id, s);
        this.bySlot[slot] = s;
      }
      this.place(s);
      const m = maskOf.get(i);
      if (m) {
        s.mask = { place: null, rect: [0, 0, 0, 0] };
        (s.mask as MaskEntry & { rle?: PackedScene['masks'][number] }).rle = m;
        this.masks.push(s);
        this.masksSorted = false;
        this.maskQueue.push(s);
      }
      this.writeState(s);
    }
    if (this.maskQueue.length) this.decodeMasks();
    this.overlayDirty = true;
    this.s.lastSceneMs = performance.now() - t0;
    this.requestFrame();
  }

  // ------------------------------------------------------------------ shapes

  private allocSlot(): number {
    const slot = this.nextSlot++;
    const rows = Math.ceil((slot + 1) / STATE_W);
    if (rows > this.stateRows) {
      let r = this.stateRows;
      while (r < rows) r *= 2;
      const data = new Uint8Array(STATE_W * r * 4);
      data.set(this.stateData);
      this.stateData = data;
      this.stateRows = r;
      this.stateDirty = true;
    }
    return slot;
  }

  /** Puts a shape in the cell of its bounds' centre (moving it if it changed cell); marks the cell dirty. */
  private place(s: Shape): void {
    const [x0, y0, x1, y1] = s.bounds;
    const cx = Math.floor((x0 + x1) / 2 / CELL), cy = Math.floor((y0 + y1) / 2 / CELL);
    const key = (Math.max(-32768, Math.min(32767, cx)) + 32768) * 65536 + (Math.max(-32768, Math.min(32767, cy)) + 32768);
    if (s.chunk && s.chunk.key !== key) {
      s.chunk.shapes.delete(s);
      s.chunk.dirty = true;
      if (!s.chunk.shapes.size) this.dropChunk(s.chunk);
      s.chunk = null;
    }
    if (!s.chunk) {
      let c = this.chunks.get(key);
      if (!c) {
        c = { key, x0: cx * CELL, y0: cy * CELL, shapes: new Set(), bounds: [0, 0, 0, 0], minExtent: Infinity, levels: new Map(), dirty: true };
        this.chunks.set(key, c);
      }
      c.shapes.add(s);
      s.chunk = c;
    }
    s.chunk.dirty = true;
  }

  private dropChunk(c: Chunk): void {
    this.pendingBuilds.delete(c);
    for (const l of c.levels.values()) destroyLevel(l);
    c.levels.clear();
    this.chunks.delete(c.key);
  }

  private writeState(s: Shape): void {
    const o = s.slot * 4;
    this.stateData[o] = this.hidden.has(s.id) ? 255 : 0;
    this.stateData[o + 1] = this.selected.has(s.id) ? 255 : 0;
    this.stateData[o + 2] = this.view.hovered === s.id ? 255 : 0;
    this.stateData[o + 3] = 255;
    this.stateDirty = true;
  }

  private removeShape(id: string): void {
    const s = this.shapes.get(id);
    if (!s) return;
    this.shapes.delete(id);
    this.bySlot[s.slot] = undefined;
    const c = s.chunk;
    if (c) {
      c.shapes.delete(s);
      c.dirty = true;
      if (!c.shapes.size) this.dropChunk(c);
    }
    if (s.mask) this.dropMask(s);
    this.stateData[s.slot * 4] = 255; // a freed slot draws nothing
    this.stateDirty = true;
  }

  private dropMask(s: Shape): void {
    if (s.mask?.place) this.maskAtlases.remove(s.mask.place);
    s.mask = null;
    this.masksDirty = true; // the list drops maskless shapes when it is rebuilt
  }

  private clearShapes(): void {
    for (const c of [...this.chunks.values()]) this.dropChunk(c);
    for (const s of new Set(this.masks)) if (s.mask?.place) this.maskAtlases.remove(s.mask.place);
    this.masks = [];
    this.masksDirty = true;
    this.maskQueue.length = 0;
    this.shapes.clear();
    this.bySlot.length = 0;
    this.nextSlot = 0;
    this.stateData.fill(0);
    this.stateDirty = true;
  }

  /** After a change: bounds and the smallest extent that can be a dot; drops the cached buffers. */
  private refreshChunk(c: Chunk): void {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity, minExt = Infinity;
    for (const s of c.shapes) {
      const b = s.bounds;
      if (b[0] < x0) x0 = b[0];
      if (b[1] < y0) y0 = b[1];
      if (b[2] > x1) x1 = b[2];
      if (b[3] > y1) y1 = b[3];
      if (dottable(s)) minExt = Math.min(minExt, Math.max(b[2] - b[0], b[3] - b[1])); // polygons are dottable
    }
    c.bounds = [x0, y0, x1, y1];
    c.minExtent = minExt;
    for (const l of c.levels.values()) destroyLevel(l);
    c.levels.clear();
    c.dirty = false;
  }

  /**
   * The cell's buffers at a level: FULL, or zoom exponent e (scale within a quarter octave of 2^e)
   * where a shape whose extent * 2^e is under LOD_PX (so under ~1.2 LOD_PX on screen) becomes one
   * dot, a polygon under COMPACT_PX is compact, and the rest keep their full geometry. Half-octave
   * levels: a zoom gesture rebuilds a cell at most every few steps. Paint order within the cell
   * is kept within each pass (fills, then dots, then compact polygons, then outlines).
   */
  private chunkLevel(c: Chunk, level: number): ChunkLevel {
    let l = c.levels.get(level);
    if (l) {
      l.used = this.s.frames;
      return l;
    }
    const t0 = performance.now();
    const scale = level === FULL ? 0 : 2 ** level;
    const dotBelow = scale ? LOD_PX / scale : 0, compactBelow = scale ? COMPACT_PX / scale : 0;
    const list = [...c.shapes].sort((a, b) => a.z - b.z);
    // per shape: 0 full, 1 dot, 2 compact (its triangles in `compactOf`)
    const tier = new Uint8Array(list.length);
    const compactOf: Float32Array[] = [];
    let nf = 0, nfi = 0, nl = 0, nli = 0, nc = 0, nd = 0;
    for (let i = 0; i < list.length; i++) {
      const s = list[i]!;
      const ext = Math.max(s.bounds[2] - s.bounds[0], s.bounds[3] - s.bounds[1]);
      if (scale && dottable(s) && ext < dotBelow) {
        tier[i] = 1;
        nd += DOT_STRIDE;
        continue;
      }
      if (scale && s.rings && ext < compactBelow) {
        const tris = compactPolygon(s.geom.handles, s.rings, COMPACT_TOLERANCE_PX / scale, s.color, s.slot);
        if (tris) {
          tier[i] = 2;
          compactOf[i] = tris;
          nc += tris.length;
          continue;
        }
      }
      nf += s.geom.fill.length;
      nfi += s.geom.fillIdx.length;
      nl += s.geom.line.length;
      nli += s.geom.lineIdx.length;
    }
    const fill = new Float32Array(nf), fillIdx = new Uint32Array(nfi), line = new Float32Array(nl), lineIdx = new Uint32Array(nli);
    const compact = nc ? new Float32Array(nc) : null;
    const dots = nd ? new Float32Array(nd) : null;
    // dots and compact polygons by sub-cell, in paint order within each
    const SUBS = SUB * SUB, span = CELL / SUB;
    const bySub: number[][] = Array.from({ length: SUBS }, () => []);
    for (let i = 0; i < list.length; i++) {
      if (!tier[i]) continue;
      const b = list[i]!.bounds;
      const sx = Math.min(SUB - 1, Math.max(0, Math.floor(((b[0] + b[2]) / 2 - c.x0) / span)));
      const sy = Math.min(SUB - 1, Math.max(0, Math.floor(((b[1] + b[3]) / 2 - c.y0) / span)));
      bySub[sy * SUB + sx]!.push(i);
    }
    const subBounds = new Float32Array(SUBS * 4), dotStart = new Uint32Array(SUBS + 1), compactStart = new Uint32Array(SUBS + 1);
    nd = nc = 0;
    for (let k = 0; k < SUBS; k++) {
      dotStart[k] = nd / DOT_STRIDE;
      compactStart[k] = nc / COMPACT_STRIDE;
      let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      for (const i of bySub[k]!) {
        const s = list[i]!;
        const b = s.bounds;
        x0 = Math.min(x0, b[0]); y0 = Math.min(y0, b[1]); x1 = Math.max(x1, b[2]); y1 = Math.max(y1, b[3]);
        const tris = compactOf[i];
        if (tris) {
          compact!.set(tris, nc);
          nc += tris.length;
        } else nd = putDot(dots!, nd, s);
      }
      subBounds.set([x0, y0, x1, y1], k * 4);
    }
    dotStart[SUBS] = nd / DOT_STRIDE;
    compactStart[SUBS] = nc / COMPACT_STRIDE;
    nf = nfi = nl = nli = 0;
    for (let i = 0; i < list.length; i++) {
      const s = list[i]!;
      if (tier[i]) continue;
      const g = s.geom;
      const fv = nf / FILL_STRIDE, lv = nl / LINE_STRIDE;
      fill.set(g.fill, nf);
      nf += g.fill.length;
      for (let k = 0; k < g.fillIdx.length; k++) fillIdx[nfi++] = g.fillIdx[k]! + fv;
      line.set(g.line, nl);
      nl += g.line.length;
      for (let k = 0; k < g.lineIdx.length; k++) lineIdx[nli++] = g.lineIdx[k]! + lv;
    }
    const regl = this.regl;
    l = {
      fill: regl.buffer(fill),
      fillIdx: regl.elements({ data: fillIdx, type: 'uint32', primitive: 'triangles' }),
      line: regl.buffer(line),
      lineIdx: regl.elements({ data: lineIdx, type: 'uint32', primitive: 'triangles' }),
      compact: compact ? regl.buffer(compact) : null,
      dots: dots ? regl.buffer(dots) : null,
      fillCount: fillIdx.length,
      lineCount: lineIdx.length,
      bytes: fill.byteLength + fillIdx.byteLength + line.byteLength + lineIdx.byteLength + (compact?.byteLength ?? 0) + (dots?.byteLength ?? 0),
      used: this.s.frames,
      subBounds,
      dotStart,
      compactStart,
    };
    if (c.levels.size >= MAX_LEVELS) {
      let oldest: number | null = null;
      for (const [k, v] of c.levels) if (oldest === null || v.used < c.levels.get(oldest)!.used) oldest = k;
      destroyLevel(c.levels.get(oldest!)!);
      c.levels.delete(oldest!);
    }
    c.levels.set(level, l);
    this.s.buildMs += performance.now() - t0;
    return l;
  }

  /**
   * Asks for a frame once the GPU has taken in the buffers and textures made since the last one:
   * a 1 px read of the warm-up target waits for them here, between frames (the frame after a zoom
   * level's buffers or tiles were made waited 5-15 ms for them in software WebGL).
   */
  private requestFrameWhenLoaded(): void {
    if (this.disposed) return;
    this.warmTarget.use(() => this.regl.read({ data: this.probe }));
    this.requestFrame();
  }

  /** Draws a few vertices of each of a level's buffers into the 1 x 1 warm-up target. */
  private warmLevel(l: ChunkLevel): void {
    this.warmTarget.use(() => this.drawFirst(l));
  }

  /** Draws the first primitive of each of a level's buffers (into the bound target). */
  private drawFirst(l: Pick<ChunkLevel, 'fill' | 'fillIdx' | 'fillCount' | 'line' | 'lineIdx' | 'lineCount' | 'dots' | 'compact'>): void {
    if (l.fillCount) this.drawFill([{ buf: l.fill, idx: l.fillIdx, count: 3 }]);
    if (l.dots) this.drawDots([{ buf: l.dots, offset: 0, count: 1 }]);
    if (l.compact) this.drawCompact([{ buf: l.compact, offset: 0, count: 3 }]);
    if (l.lineCount) this.drawLine([{ buf: l.line, idx: l.lineIdx, count: 3, marker: 3, halo: HALO }]);
  }

  /** FULL, or the zoom exponent when some shape of the cell is small enough for a lighter form. */
  private wantedLevel(c: Chunk, exp: number): number {
    return c.minExtent * 2 ** exp < COMPACT_PX ? exp : FULL;
  }

  /** Builds the levels that frames deferred, a slice at a time, then redraws. */
  private scheduleBuilds(): void {
    if (this.buildTimer !== null || this.disposed) return;
    this.buildTimer = setTimeout(() => {
      this.buildTimer = null;
      if (this.disposed) return;
      const t0 = performance.now();
      const exp = Math.round(Math.log2(this.camera.scale) * 2) / 2;
      for (const [c, level] of this.pendingBuilds) {
        if (performance.now() - t0 > BUILD_SLICE_MS) break;
        this.pendingBuilds.delete(c);
        // the camera may have moved on: build what it wants now (the next frame asks again anyway)
        if (this.chunks.get(c.key) === c && !c.dirty && level === this.wantedLevel(c, exp)) this.warmLevel(this.chunkLevel(c, level));
      }
      if (this.pendingBuilds.size) this.scheduleBuilds();
      else this.requestFrameWhenLoaded();
    }, 0);
  }

  // ------------------------------------------------------------------ masks

  private decodeMasks(): void {
    if (!this.kernels) {
      const tk = performance.now();
      this.kernelsLoading ??= loadKernels(this.options.kernelsUrl ?? undefined).then((k) => {
        this.kernels = k;
        this.s.kernelsLoadMs = performance.now() - tk;
        this.decodeMasks();
        return k;
      }, (err: unknown) => {
        console.error('Error rendering masks (kernels):', err);
        this.kernelsLoading = null;
        throw err;
      });
      return;
    }
    // Decode in slices so a scene of many masks does not block camera updates.
    const t0 = performance.now();
    while (this.maskQueue.length && performance.now() - t0 < 12) {
      const s = this.maskQueue.shift()!;
      const entry = s.mask as (MaskEntry & { rle?: PackedScene['masks'][number] }) | null;
      if (!entry?.rle || !this.shapes.has(s.id)) continue;
      try {
        const { rect, data } = cropMask(this.kernels, entry.rle);
        entry.place = this.maskAtlases.add(rect[3], rect[2], data);
        entry.rect = rect;
        delete entry.rle;
        this.masksDirty = true;
      } catch (err) {
        console.error('Error rendering mask:', err);
      }
    }
    this.s.maskDecodeMs += performance.now() - t0;
    this.requestFrame();
    if (this.maskQueue.length) setTimeout(() => this.decodeMasks(), 0);
  }

  /** One vertex buffer of every decoded mask's quad, in z order; runs split where the atlas changes. */
  private rebuildMasks(): void {
    if (this.masksDirty) {
      const seen = new Set<Shape>();
      this.masks = this.masks.filter((s) => s.mask && this.shapes.get(s.id) === s && !seen.has(s) && Boolean(seen.add(s)));
    }
    if (!this.masksSorted) this.masks.sort((a, b) => a.z - b.z);
    this.masksSorted = true;
    this.masksDirty = false;
    const v = new Float32Array(this.masks.length * 6 * MASK_STRIDE);
    const runs: { atlas: Atlas; offset: number; count: number }[] = [];
    let n = 0;
    for (const s of this.masks) {
      const p = s.mask?.place;
      if (!p) continue;
      const [x, y, w, h] = s.mask!.rect;
      const a = p.atlas;
      // image (x, y) -> texel (u: row, v: column): the rect's top-left texel and the step per image px
      const u0 = p.u / a.w, v0 = p.v / a.h, du = h ? p.tw / a.w / h : 0, dv = w ? p.th / a.h / w : 0;
      // two triangles over the rect; corners (-1 / 1) let the shader grow it for the halo
      const corners = [0, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 1];
      for (let k = 0; k < 6; k++) {
        const o = (n + k) * MASK_STRIDE, cx = corners[2 * k]!, cy = corners[2 * k + 1]!;
        v.set([x + cx * w, y + cy * h, cx * 2 - 1, cy * 2 - 1, x, y, x + w, y + h, u0, v0, du, dv, s.color, s.slot], o);
      }
      const last = runs[runs.length - 1];
      if (last && last.atlas === a) last.count += 6;
      else runs.push({ atlas: a, offset: n, count: 6 });
      n += 6;
    }
    this.maskBuf(v.subarray(0, n * MASK_STRIDE));
    this.maskRuns = runs;
  }

  // ------------------------------------------------------------------ overlay

  private rebuildOverlay(): void {
    const fill: number[] = [], fillIdx: number[] = [];
    const line = lineOut(), handles = lineOut();
    const addFill = (g: ShapeGeometry) => {
      const v = fill.length / FILL_STRIDE;
      for (const x of g.fill) fill.push(x);
      for (const i of g.fillIdx) fillIdx.push(i + v);
    };
    let n = 0;
    for (const id of this.view.selected) {
      if (n++ >= MAX_HANDLE_SHAPES) break;
      const s = this.shapes.get(id);
      if (!s || this.hidden.has(id)) continue;
      handleGeometry(s.geom.handles, 0xffffff, handles);
      if (s.mask) {
        const h = s.geom.handles;
        pushRing(line, h, 0, 4, true, s.color, -1);
      }
    }
    const d = this.view.drawing;
    if (d && d.points.length >= 2) {
      const count = d.points.length / 2;
      if (d.closed && count >= 3) addFill(polygonGeometry(d.points, [count], d.color, -2));
      if (count >= 2) pushRing(line, d.points, 0, count, d.closed, d.color, -1);
      handleGeometry(d.points, 0xffffff, handles);
    }
    const points = lineOut();
    if (this.view.proposal) proposalGeometry(this.view.proposal, addFill, line, points);
    const m = this.view.marquee;
    if (m) {
      const g = boxGeometry(m.x, m.y, m.width, m.height, 0x3b5bdb, -2);
      addFill(g);
      const v = line.v.length / LINE_STRIDE;
      for (const x of g.line) line.v.push(x);
      for (const i of g.lineIdx) line.i.push(i + v);
    }
    const parts: [number[], number[]][] = [[fill, fillIdx], [line.v, line.i], [handles.v, handles.i], [points.v, points.i]];
    parts.forEach(([v, i], k) => {
      const o = this.overlay[k]!;
      o.buf(new Float32Array(v));
      o.idx({ data: new Uint32Array(i), type: 'uint32', primitive: 'triangles' });
      o.count = i.length;
    });
    this.overlayDirty = false;
  }

  // ------------------------------------------------------------------ labels

  /**
   * The labels to draw: every shape in view (image px) when at most MAX_VISIBLE are, else the
   * hovered and selected ones only. A cell inside the view counts whole without a look at its
   * shapes and the count stops past MAX_VISIBLE, so a frame never walks 100k shapes.
   */
  private labelInputs(vx0: number, vy0: number, vx1: number, vy1: number): LabelInput[] {
    const inView = (b: readonly number[]) => !(b[0]! > vx1 || b[2]! < vx0 || b[1]! > vy1 || b[3]! < vy0);
    let shapes: Shape[] = [];
    let dense = false;
    for (const c of this.chunks.values()) {
      const b = c.bounds;
      if (!inView(b)) continue;
      if (b[0] >= vx0 && b[2] <= vx1 && b[1] >= vy0 && b[3] <= vy1 && shapes.length + c.shapes.size > MAX_VISIBLE) dense = true;
      else {
        for (const s of c.shapes) {
          if (!inView(s.bounds) || this.hidden.has(s.id)) continue;
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
      const h = this.view.hovered ? this.shapes.get(this.view.hovered) : undefined;
      if (h) shapes.push(h);
      let looked = 0;
      for (const id of this.view.selected) {
        if (shapes.length >= MAX_LABELS || ++looked > 5000) break;
        const s = this.shapes.get(id);
        if (s && s !== h && inView(s.bounds)) shapes.push(s);
      }
      shapes = shapes.filter((s) => !this.hidden.has(s.id));
    }
    shapes = shapes.filter((s) => s.label);
    shapes.sort((a, b) => b.z - a.z); // topmost first: they keep their labels where labels would overlap
    const { x: cx, y: cy, scale } = this.camera;
    // a polyline's label goes at its first point (its bounds' corner may be far from the line)
    const anchor = (s: Shape, k: 0 | 1) => (s.type === 2 ? s.geom.handles[k]! : s.bounds[k]);
    return shapes.map((s) => ({
      text: s.label,
      color: s.color,
      ax: anchor(s, 0) * scale + cx,
      ay: anchor(s, 1) * scale + cy,
      point: s.type === 3,
      priority: this.selected.has(s.id) || this.view.hovered === s.id,
    }));
  }

  // ------------------------------------------------------------------ frames

  requestFrame(): void {
    if (this.frameRequested || this.disposed) return;
    this.frameRequested = true;
    if (this.framePending) return; // drawn by the callback already asked for
    this.framePending = true;
    const run = () => {
      this.framePending = false;
      if (this.frameRequested) this.frame();
    };
    const raf = (globalThis as { requestAnimationFrame?: (cb: () => void) => number }).requestAnimationFrame;
    if (raf) raf(run);
    else setTimeout(run, 0);
  }

  private frame(): void {
    this.frameRequested = false;
    if (this.disposed || this.held) return;
    const t0 = performance.now();
    this.draw();
    if (this.measure) this.gl.readPixels(0, 0, 1, 1, this.gl.RGBA, this.gl.UNSIGNED_BYTE, this.probe); // waits for the GPU
    const dt = performance.now() - t0;
    this.s.lastFrameMs = dt;
    this.s.frames++;
    this.frameTimes.push(dt);
    if (this.frameTimes.length > 2000) this.frameTimes.splice(0, 1000);
    this.lastFrameAt = performance.timeOrigin + performance.now();
    for (const f of this.frameWaiters.splice(0)) f();
    if (this.isIdle()) {
      const w = this.idleWaiters.splice(0);
      for (const f of w) f();
    }
  }

  private isIdle(): boolean {
    return !this.frameRequested && !this.held && !this.labels.loading && !this.pendingBuilds.size && !this.imageLoading && (this.image?.pending ?? 0) === 0 && this.maskQueue.length === 0 && !(this.kernelsLoading && !this.kernels && this.masks.length);
  }

  /** Resolves after the next frame once nothing is loading. */
  idle(): Promise<RenderStats> {
    return new Promise((resolve) => {
      this.idleWaiters.push(() => resolve(this.stats()));
      this.requestFrame();
    });
  }

  draw(): void {
    const regl = this.regl;
    regl.poll();
    if (this.stateDirty) {
      this.stateTex({ width: STATE_W, height: this.stateRows, data: this.stateData, min: 'nearest', mag: 'nearest' });
      this.stateDirty = false;
    }
    for (const c of this.chunks.values()) if (c.dirty) this.refreshChunk(c);
    if (this.overlayDirty) this.rebuildOverlay();
    const [r, g, b] = this.background;
    regl.clear({ color: [r, g, b, 1] });
    if (this.image) {
      const quads = this.image.visible(this.camera, this.width, this.height, this.dpr);
      if (quads.length) this.drawImage(quads);
    }
    if (this.masksDirty || !this.masksSorted) this.rebuildMasks();
    if (this.maskRuns.length) this.drawMask(this.maskRuns.map((r) => ({ tex: r.atlas.tex, offset: r.offset, count: r.count })));
    // Visible cells (the viewport in image px, grown by the widest outline or marker).
    const { x: cx, y: cy, scale } = this.camera;
    const pad = 12 / scale;
    const vx0 = -cx / scale - pad, vy0 = -cy / scale - pad, vx1 = (this.width - cx) / scale + pad, vy1 = (this.height - cy) / scale + pad;
    const exp = Math.round(Math.log2(scale) * 2) / 2;
    const levels: ChunkLevel[] = [];
    const dots: { buf: Buffer; offset: number; count: number }[] = [];
    const compacts: { buf: Buffer; offset: number; count: number }[] = [];
    let culled = 0;
    for (const c of this.chunks.values()) {
      const b = c.bounds;
      if (b[0] > vx1 || b[2] < vx0 || b[1] > vy1 || b[3] < vy0) {
        culled++;
        continue;
      }
      const want = this.wantedLevel(c, exp);
      const standIn = c.levels.has(want) ? null : nearestLevel(c, want);
      if (standIn) {
        this.pendingBuilds.set(c, want);
        standIn.used = this.s.frames;
      }
      const l = standIn ?? this.chunkLevel(c, want);
      levels.push(l);
      const inside = b[0] >= vx0 && b[2] <= vx1 && b[1] >= vy0 && b[3] <= vy1;
      if (l.dots) pushRanges(dots, l.dots, l.dotStart, l.subBounds, inside, vx0, vy0, vx1, vy1);
      if (l.compact) pushRanges(compacts, l.compact, l.compactStart, l.subBounds, inside, vx0, vy0, vx1, vy1);
    }
    if (this.pendingBuilds.size) this.scheduleBuilds();
    this.s.culledChunks = culled;
    const [oFill, oLine, oHandles, oPoints] = this.overlay as [ChunkOverlay, ChunkOverlay, ChunkOverlay, ChunkOverlay];
    const fills: { buf: Buffer; idx: Elements; count: number }[] = [];
    for (const l of levels) if (l.fillCount) fills.push({ buf: l.fill, idx: l.fillIdx, count: l.fillCount });
    if (fills.length) this.drawFill(fills);
    if (dots.length) this.drawDots(dots);
    if (compacts.length) this.drawCompact(compacts);
    if (oFill.count) this.drawFill([oFill]);
    const lines: { buf: Buffer; idx: Elements; count: number; marker: number; halo: number[]; haloW?: number; round?: boolean }[] = [];
    for (const l of levels) if (l.lineCount) lines.push({ buf: l.line, idx: l.lineIdx, count: l.lineCount, marker: 3, halo: HALO });
    if (oLine.count) lines.push({ ...oLine, marker: 3, halo: HALO });
    if (oHandles.count) lines.push({ ...oHandles, marker: 3, halo: HANDLE_HALO });
    if (oPoints.count) lines.push({ ...oPoints, marker: PROMPT_POINT_R, halo: PROMPT_POINT_HALO, haloW: 2, round: true });
    if (lines.length) this.drawLine(lines);
    this.labels.update(this.display.labels ? this.labelInputs(vx0 + pad, vy0 + pad, vx1 - pad, vy1 - pad) : [], this.width, this.height, this.dpr);
    this.labels.render(this.width, this.height);
    this.gl.flush();
  }

  stats(): RenderStats {
    let fv = 0, lv = 0, geomBytes = 0;
    for (const c of this.chunks.values()) {
      for (const l of c.levels.values()) {
        fv += l.fillCount + l.compactStart[SUB * SUB]! + l.dotStart[SUB * SUB]!;
        lv += l.lineCount;
        geomBytes += l.bytes;
      }
    }
    const maskBytes = this.maskAtlases.bytes();
    const tile = this.options.tileSize ?? 512;
    const tileBytes = this.image ? (this.image.mode === 'single' ? this.image.source.width * this.image.source.height * 4 : this.image.cached * tile * tile * 4) : 0;
    const mem = (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory;
    return {
      shapes: this.shapes.size,
      masks: this.masks.length,
      chunks: this.chunks.size,
      culledChunks: this.s.culledChunks,
      fillVertices: fv,
      lineVertices: lv,
      tilesCached: this.image?.cached ?? 0,
      tilesLoading: this.image?.pending ?? 0,
      tileLevel: this.image?.level ?? 0,
      frames: this.s.frames,
      lastFrameMs: this.s.lastFrameMs,
      lastSceneMs: this.s.lastSceneMs,
      buildMs: this.s.buildMs,
      maskDecodeMs: this.s.maskDecodeMs,
      kernelsLoadMs: this.s.kernelsLoadMs,
      imageLoadMs: this.s.imageLoadMs,
      maxTextureSize: this.maxTextureSize,
      imageMode: this.image?.mode ?? 'none',
      labels: this.labels.drawn,
      gpuBytes: geomBytes + maskBytes + tileBytes + STATE_W * this.stateRows * 4,
      heapBytes: mem ? mem.usedJSHeapSize : null,
      backend: this.backend,
    };
  }

  dispose(): void {
    this.disposed = true;
    if (this.buildTimer !== null) clearTimeout(this.buildTimer);
    if (this.holdTimer !== null) clearTimeout(this.holdTimer);
    for (const f of this.frameWaiters.splice(0)) f();
    this.image?.dispose();
    for (const e of this.preloaded.values()) this.dropLayer(e.layer);
    this.preloaded.clear();
    this.maskAtlases.dispose();
    this.warmTarget.destroy();
    this.labels.dispose();
    this.regl.destroy();
    for (const f of this.idleWaiters.splice(0)) f();
  }
}

/** Bounds of a shape in image px from its packed rect (boxes, masks, keypoints) or its vertices. */
function boundsOf(type: number, x: number, y: number, w: number, h: number, pts: Float32Array): [number, number, number, number] {
  if (type !== 1 && type !== 2) return type === 3 ? [x, y, x, y] : [x, y, x + w, y + h];
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (let i = 0; i + 1 < pts.length; i += 2) {
    const px = pts[i]!, py = pts[i + 1]!;
    if (px < x0) x0 = px;
    if (px > x1) x1 = px;
    if (py < y0) y0 = py;
    if (py > y1) y1 = py;
  }
  return x0 <= x1 ? [x0, y0, x1, y1] : [0, 0, 0, 0];
}

/**
 * Adds the draws of one level buffer's sub-cells in view: runs of consecutive sub-cells merged,
 * the whole buffer when the cell is inside the view.
 */
function pushRanges(out: { buf: Buffer; offset: number; count: number }[], buf: Buffer, start: Uint32Array, bounds: Float32Array, inside: boolean, vx0: number, vy0: number, vx1: number, vy1: number): void {
  const n = start.length - 1;
  if (inside) {
    if (start[n]! > 0) out.push({ buf, offset: 0, count: start[n]! });
    return;
  }
  let from = -1;
  for (let k = 0; k <= n; k++) {
    const visible = k < n && start[k + 1]! > start[k]! && !(bounds[4 * k]! > vx1 || bounds[4 * k + 2]! < vx0 || bounds[4 * k + 1]! > vy1 || bounds[4 * k + 3]! < vy0);
    if (visible && from < 0) from = k;
    else if (!visible && from >= 0) {
      out.push({ buf, offset: start[from]!, count: start[k]! - start[from]! });
      from = -1;
    }
  }
}

/** The cell's built level nearest to `want` (FULL counts as the finest), or null if it has none. */
function nearestLevel(c: Chunk, want: number): ChunkLevel | null {
  const rank = (k: number) => (k === FULL ? 64 : k);
  let best: ChunkLevel | null = null, bestD = Infinity;
  for (const [k, l] of c.levels) {
    const d = Math.abs(rank(k) - rank(want));
    if (d < bestD) {
      best = l;
      bestD = d;
    }
  }
  return best;
}

/** Boxes, polygons and polylines can stand in as a dot when tiny (keypoints and masks cannot). */
const dottable = (s: Shape) => s.type === 0 || s.type === 1 || s.type === 2;

/** Writes a tiny shape's stand-in: a dot over its bounds (the shader draws it nearly opaque: it stands for the outline too). */
function putDot(out: Float32Array, at: number, s: Shape): number {
  const [x0, y0, x1, y1] = s.bounds;
  out[at++] = (x0 + x1) / 2;
  out[at++] = (y0 + y1) / 2;
  out[at++] = (x1 - x0) / 2;
  out[at++] = (y1 - y0) / 2;
  out[at++] = s.color;
  out[at++] = s.slot;
  return at;
}

type MaskRle = { size: [number, number]; counts: number[] | Uint32Array | string };
type Crop = { rect: [number, number, number, number]; data: Uint8Array };

/** The mask's bounding box decoded by the kernel (no full-image bitmap). */
export function cropMask(k: Kernels, rle: MaskRle): Crop {
  const c = k.decodeCrop(rle);
  if (!c.width || !c.height) return { rect: [0, 0, 0, 0], data: new Uint8Array(1) };
  return { rect: [c.x, c.y, c.width, c.height], data: c.data };
}
