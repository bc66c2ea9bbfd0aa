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
import createREGL, { type Buffer, type Framebuffer2D, type Regl, type Texture2D } from 'regl';
import type { CameraState } from '../engine';
import { packedGeometry } from './geometry';
import { DEFAULT_DISPLAY, type ImageSourceMsg, type PackedScene, type RenderDisplay, type RenderIssue, type RenderStats, type RenderView, type RendererOptions, type TileLevel } from './protocol';
import { LabelLayer, labelInputs } from './labels';
import { MaskLayer } from './mask-layer';
import { countGl, type GlCounts, type PointCounts } from './gl-counter';
import { ImageSwap } from './image-swap';
import { createPrograms, drawLevelFirst, HALO, STATE_W, warmPrograms, type Programs } from './programs';
import { ImageLayer, type TileSource } from './tiles';
import { boundsOf, buildLevel, CELL, destroyLevel, dropUnusedStores, LevelBuffers, levelExp, levelsInView, pushRanges, refreshChunk, SUB, wantedLevel, type Chunk, type ChunkLevel, type Shape } from './cells';
import { RunList } from './level-buffers';
import { Compactor } from './compaction';
import { ImpostorAtlas } from './impostors';
import { FusedLayer, NO_FUSED } from './fused';
import { overlayLineDraws, overlayParts, type ChunkOverlay, type LineDraw } from './overlay';

/**
 * A cell that has buffers for another zoom level draws those (the nearest) until its buffers for
 * the new level are built between frames, BUILD_SLICE_MS at a time, then the view is redrawn:
 * building them in the frame that crossed a level was 40-60 ms at 10k shapes. A cell with no
 * buffers yet builds them in the frame.
 */
const BUILD_SLICE_MS = 6;

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
  /** Masks: decoded in slices into shared atlases, drawn in z order. */
  private readonly maskLayer: MaskLayer;
  /** The image drawn, its swaps, the images kept for them, the hold of the last frame. */
  private readonly images: ImageSwap;
  private readonly frameWaiters: (() => void)[] = [];
  /** When the last frame was drawn: epoch ms (performance.timeOrigin based, comparable across realms). */
  private lastFrameAt = 0;
  private readonly overlay: ChunkOverlay[];
  private overlayDirty = true;
  private issues: RenderIssue[] = [];
  /** CSS px at the view's edges scissored away while a fused texture's band is drawn (its viewport grown past the scissor): dots and compact polygons there are not drawn (ProgramState.inset). */
  private inset = 0;
  private frameRequested = false;
  /** An animation frame callback is on its way (requestFrame). */
  private framePending = false;
  /** Cells drawn at a stand-in level, with the level they want (built between frames). */
  private readonly pendingBuilds = new Map<Chunk, number>();
  private buildTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly idleWaiters: (() => void)[] = [];
  private readonly quad: Buffer;
  /**
   * A 1 x 1 target where new buffers and textures are drawn once between frames: software WebGL
   * does per-resource work at a resource's first draw (~1 ms a tile texture), which otherwise
   * lands in the frame that shows it.
   */
  private readonly warmTarget: Framebuffer2D;
  /** Zoomed out: cells' dots and compact polygons drawn once into textures (RendererOptions.impostors; off by default: slower on SwiftShader). */
  readonly impostors: ImpostorAtlas | null;
  /** Panning and at rest: the shapes drawn once into a texture, composited in the image's pass (fused.ts; off with impostors or `fused: false`). */
  private readonly fused: FusedLayer | null;
  private readonly programs: Programs;
  /** Counts every change to what the masks and shapes' passes draw (the fused texture's key). */
  private gen = 0;
  /** Counts the cells' levels built in place of stand-ins and laid out anew (the same shapes, drawn exactly; a zoom's scaled texture holds). */
  private lod = 0;
  private readonly background: [number, number, number];
  private disposed = false;
  /** Frame durations (ms, including a GPU finish when `measure` is on). */
  readonly frameTimes: number[] = [];
  measure = false;
  /** Benchmarks (setMeasure): draw calls and bytes uploaded to the GPU per frame, uploads between frames included. */
  readonly frameCounts: PointCounts = { draws: [], uploadBytes: [], points: [] };
  private glCounts: GlCounts | null = null;
  private readonly probe = new Uint8Array(4);
  /** The shared buffers of each level of detail (cells.ts: a cell's geometry is a range of its level's). */
  private readonly stores = new Map<number, LevelBuffers>();
  private readonly storeOf = (level: number): LevelBuffers => {
    let st = this.stores.get(level);
    if (!st) this.stores.set(level, (st = new LevelBuffers(this.regl)));
    return st;
  };
  /** Lays a level's cells out in one run of its buffers once the scene is quiet (compaction.ts). */
  private readonly compactor = new Compactor({
    chunks: this.chunks,
    stores: this.stores,
    newStore: () => new LevelBuffers(this.regl),
    enabled: () => this.options.compaction !== false,
    building: () => this.pendingBuilds.size > 0,
    done: (sample) => {
      if (!sample) return this.resolveIdle(); // nothing laid out: no pixel changed, no frame to draw
      this.lod++; // a level laid out anew
      this.warmLevel(sample);
      this.requestFrameWhenLoaded();
    },
  });
  /** The frame's draws by pass, reused (no per-frame allocation for them). */
  private readonly lists = {
    levels: [] as ChunkLevel[],
    cells: [] as Chunk[],
    /** Cells built in the frame, and the level each wants. */
    build: [] as Chunk[],
    wants: [] as number[],
    dots: new RunList(),
    compacts: new RunList(),
    fills: new RunList(),
    lines: new RunList({ marker: 3, halo: HALO }),
    overlayLines: [] as LineDraw[],
  };
  private s = { frames: 0, lastFrameMs: 0, lastSceneMs: 0, culledChunks: 0, buildMs: 0, shapeDraws: 0 };

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
    this.images = new ImageSwap({
      newLayer: (source) => this.newLayer(source),
      camera: () => this.camera,
      size: () => ({ width: this.width, height: this.height, dpr: this.dpr }),
      disposed: () => this.disposed,
      requestFrame: () => this.requestFrame(),
    });
    const glMaxTexture = gl.getParameter(gl.MAX_TEXTURE_SIZE) as number;
    this.maxTextureSize = Math.min(glMaxTexture, options.maxTextureSize ?? 4096);
    this.resize(options.width, options.height, options.dpr);
    const regl = this.regl;
    this.stateTex = regl.texture({ width: STATE_W, height: this.stateRows, data: this.stateData, min: 'nearest', mag: 'nearest' });
    // overlay: [0] fill, [1] outlines, [2] handles, [3] Auto-Annotate's points, [4] issue pins
    this.overlay = [0, 1, 2, 3, 4].map(() => ({
      buf: regl.buffer({ usage: 'dynamic', type: 'float', length: 0 }),
      idx: regl.elements({ data: new Uint32Array(0), type: 'uint32', primitive: 'triangles', usage: 'dynamic' }),
      offset: 0,
      count: 0,
    }));
    this.quad = regl.buffer(new Float32Array([0, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 1]));
    this.maskLayer = new MaskLayer(regl, this.maxTextureSize, glMaxTexture, options.kernelsUrl ?? undefined, this.shapes, () => {
      this.gen++; // a mask decoded or dropped
      this.requestFrame();
    });
    const programs = createPrograms(regl, this.quad, this.maskLayer.buf, {
      camera: () => this.camera,
      size: () => ({ width: this.width, height: this.height, dpr: this.dpr }),
      stateTex: () => this.stateTex,
      stateRows: () => this.stateRows,
      transparency: () => this.view.transparency,
      display: () => this.display,
      fused: () => this.fused?.uniforms ?? { tex: null, at: [] }, inset: () => this.inset,
    });
    this.programs = programs;
    this.impostors = options.impostors ? new ImpostorAtlas(regl, programs.cam) : null;
    this.fused = options.fused !== false && !options.impostors ? new FusedLayer(regl, this.maxTextureSize, {
      requestFrame: () => this.requestFrame(), settled: () => this.resolveIdle(), building: () => this.pendingBuilds.size > 0 || this.maskLayer.pending, cells: this.chunks,
      draw: (cam, w, h, inset = 0) => this.withView(cam, w, h, () => this.drawShapes(), inset), prepare: (cam, w, h) => this.withView(cam, w, h, () => this.drawShapes(true)),
    }) : null;
    this.warmTarget = regl.framebuffer({ width: 1, height: 1, depthStencil: false });
    this.warmTarget.use(() => this.fused?.warm(programs));
    this.labels = new LabelLayer(regl, () => this.requestFrame());
    warmPrograms(regl, programs);
    this.requestFrame();
  }

  /** Benchmarks: finish the GPU in each frame (frame times until the pixels exist) and count its draw calls and uploads. */
  setMeasure(on: boolean): void {
    this.measure = on;
    if (on && !this.glCounts) this.glCounts = countGl(this.gl);
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
    if (this.images.shows(key)) {
      await this.nextFrame();
      return this.lastFrameAt;
    }
    await this.images.swap(msg, key);
    // The swap's frame is drawn now, not at the next animation frame (up to 16 ms later): the
    // canvas shows it when this task ends.
    const drawn = this.nextFrame();
    if (this.frameRequested && !this.images.held) this.frame();
    await drawn;
    return this.lastFrameAt;
  }

  /** Opens an image ahead under `key` (protocol.ts), with the textures of `camera`'s view. */
  preload(key: string, msg: ImageSourceMsg, camera: CameraState): void {
    this.images.preload(key, msg, camera);
  }

  private newLayer(source: TileSource): ImageLayer {
    return new ImageLayer(this.regl, source, this.maxTextureSize, this.options.tileSize ?? 512, this.options.maxTiles ?? 160, () => this.requestFrameWhenLoaded(), (tex) => {
      // one texel over the whole 1 x 1 target
      this.warmTarget.use(() => this.programs.image({ tex, rect: [-1e7, -1e7, 2e7, 2e7], uv: [0, 0, 1, 1] }));
    });
  }

  /** Draws no frame (the canvas keeps the last one) until the swap that follows, at most HOLD_MAX_MS (image-swap.ts). */
  hold(): void {
    this.images.hold();
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
    this.images.image?.source.renew?.(levels);
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

  /** The image's issue pins and regions, drawn over the shapes (./issues). */
  setIssues(issues: RenderIssue[]): void {
    this.issues = issues;
    this.overlayDirty = true;
    this.requestFrame();
  }

  setDisplay(d: RenderDisplay): void {
    this.display = { ...d, outlineWidth: Math.max(0.5, Math.min(6, d.outlineWidth)), gamma: Math.max(0.05, d.gamma) };
    this.requestFrame();
  }

  applyScene(p: PackedScene): void {
    const t0 = performance.now();
    if (p.reset) this.clearShapes();
    for (const id of p.removed) this.removeShape(id);
    const at = { ring: 0, coord: 0 };
    const maskOf = new Map<number, PackedScene['masks'][number]>();
    for (const m of p.masks) maskOf.set(m.index, m);
    const skeletonOf = new Map<number, NonNullable<PackedScene['skeletons']>[number]>();
    for (const sk of p.skeletons ?? []) skeletonOf.set(sk.index, sk);
    const dashed = new Set(p.dashed);
    for (let i = 0; i < p.ids.length; i++) {
      const dash = dashed.has(i);
      const id = p.ids[i]!;
      let s = this.shapes.get(id);
      const type = p.types[i]!, color = p.colors[i]!;
      const slot = s ? s.slot : this.allocSlot();
      const rx = p.rect[4 * i]!, ry = p.rect[4 * i + 1]!, rw = p.rect[4 * i + 2]!, rh = p.rect[4 * i + 3]!;
      const { geom, ringLens } = packedGeometry(p, i, at, skeletonOf.get(i), slot, dash);
      const bounds = boundsOf(type, rx, ry, rw, rh, geom.handles);
      const label = p.names[p.nameIdx[i]!] ?? '';
      if (s) {
        if (s.mask) this.maskLayer.drop(s);
        s.z = p.z[i]!;
        s.type = type;
        s.color = color;
        s.geom = geom;
        s.rings = ringLens;
        s.bounds = bounds;
        s.label = label;
        s.dashed = dash;
      } else {
        s = { id, z: p.z[i]!, type, color, slot, geom, rings: ringLens, mask: null, bounds, chunk: null, label, dashed: dash };
        this.shapes.set(id, s);
        this.bySlot[slot] = s;
      }
      this.place(s);
      const m = maskOf.get(i);
      s.maskLabel = m ? { counts: m.counts, height: m.size[0] } : undefined;
      if (m) this.maskLayer.add(s, m);
      this.writeState(s);
    }
    if (this.maskLayer.pendingDecodes) this.maskLayer.decode();
    this.overlayDirty = true;
    this.s.lastSceneMs = performance.now() - t0;
    this.compactor.poke();
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
        c = { key, x0: cx * CELL, y0: cy * CELL, shapes: new Set(), bounds: [0, 0, 0, 0], minExtent: Infinity, levels: new Map(), dirty: true, gen: 0 };
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
    if (s.chunk) s.chunk.gen++;
    this.gen++;
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
    if (s.mask) this.maskLayer.drop(s);
    this.gen++;
    this.stateData[s.slot * 4] = 255; // a freed slot draws nothing
    this.stateDirty = true;
  }

  private clearShapes(): void {
    for (const c of [...this.chunks.values()]) this.dropChunk(c);
    this.maskLayer.clear();
    this.shapes.clear();
    this.bySlot.length = 0;
    this.nextSlot = 0;
    this.gen++;
    this.stateData.fill(0);
    this.stateDirty = true;
  }

  /** The cell's buffers at a level (see buildLevel), built on first use. */
  private chunkLevel(c: Chunk, level: number): ChunkLevel {
    const l = c.levels.get(level);
    if (l && !l.stale) {
      l.used = this.s.frames;
      return l;
    }
    const t0 = performance.now();
    const built = buildLevel(this.storeOf, c, level, this.s.frames);
    this.s.buildMs += performance.now() - t0;
    return built;
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

  /** Draws a few vertices of each of a level's ranges into the 1 x 1 warm-up target. */
  private warmLevel(l: ChunkLevel): void {
    this.warmTarget.use(() => drawLevelFirst(this.programs, l));
  }

  /** Builds the levels that frames deferred, a slice at a time, then redraws. */
  private scheduleBuilds(): void {
    if (this.buildTimer !== null || this.disposed) return;
    this.buildTimer = setTimeout(() => {
      this.buildTimer = null;
      if (this.disposed) return;
      const t0 = performance.now();
      const exp = levelExp(this.camera.scale);
      for (const [c, level] of this.pendingBuilds) {
        if (performance.now() - t0 > BUILD_SLICE_MS) break;
        this.pendingBuilds.delete(c);
        // the camera may have moved on: build what it wants now (the next frame asks again anyway)
        if (this.chunks.get(c.key) === c && !c.dirty && level === wantedLevel(c, exp)) this.warmLevel(this.chunkLevel(c, level));
      }
      if (this.pendingBuilds.size) this.scheduleBuilds();
      else {
        this.lod++; // the levels built replace their stand-ins (in a fused texture too)
        this.requestFrameWhenLoaded();
        this.compactor.poke();
      }
    }, 0);
  }

  // ------------------------------------------------------------------ overlay

  private rebuildOverlay(): void {
    const parts = overlayParts(this.view, this.shapes, this.hidden, this.issues);
    parts.forEach(([v, i], k) => {
      const o = this.overlay[k]!;
      o.buf(new Float32Array(v));
      o.idx({ data: new Uint32Array(i), type: 'uint32', primitive: 'triangles' });
      o.count = i.length;
    });
    this.overlayDirty = false;
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
    if (this.disposed || this.images.held) return;
    const t0 = performance.now();
    this.draw();
    if (this.measure) this.gl.readPixels(0, 0, 1, 1, this.gl.RGBA, this.gl.UNSIGNED_BYTE, this.probe); // waits for the GPU
    const dt = performance.now() - t0;
    this.s.lastFrameMs = dt;
    this.s.frames++;
    this.frameTimes.push(dt);
    if (this.frameTimes.length > 2000) this.frameTimes.splice(0, 1000);
    if (this.measure && this.glCounts) {
      for (const k of ['draws', 'uploadBytes', 'points'] as const) this.frameCounts[k].push(this.glCounts[k]);
      this.glCounts.draws = this.glCounts.uploadBytes = this.glCounts.points = 0;
    }
    this.lastFrameAt = performance.timeOrigin + performance.now();
    for (const f of this.frameWaiters.splice(0)) f();
    this.resolveIdle();
  }

  /** Resolves the idle() waiters once nothing is loading (after a frame, or work between frames that ended). */
  private resolveIdle(): void {
    if (this.isIdle()) for (const f of this.idleWaiters.splice(0)) f();
  }

  private isIdle(): boolean {
    return !this.frameRequested && !this.images.held && !this.labels.loading && !this.pendingBuilds.size && !this.images.loading && (this.images.image?.pending ?? 0) === 0 && !this.maskLayer.pending && !this.compactor.pending && !this.fused?.settling;
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
    for (const c of this.chunks.values()) if (c.dirty) refreshChunk(c);
    dropUnusedStores(this.stores);
    if (this.overlayDirty) this.rebuildOverlay();
    const camera = this.camera;
    // at rest or panning: the shapes from their texture (fused.ts), drawn on whole device px of its pan
    const fused = this.fused?.frame(`${this.dpr}|${this.gen}|${this.view.transparency}|${this.display.outlineWidth}`, this.lod, camera, this.dpr, this.width, this.height, !this.overlay[0]!.count && this.chunks.size > 0);
    if (fused) this.camera = fused.cam;
    const [r, g, b] = this.background;
    regl.clear({ color: [r, g, b, 1] });
    const image = this.images.image;
    const quads = image ? image.visible(this.camera, this.width, this.height, this.dpr) : [];
    if (fused) this.fused!.composite(fused, this.camera, this.dpr, this.width, this.height, image && quads.length && !image.gaps ? image.source : null, quads, this.programs);
    else {
      if (quads.length) this.programs.image(quads);
      this.drawShapes();
    }
    const { x: cx, y: cy, scale } = this.camera;
    const { overlayLines } = this.lists;
    overlayLines.length = 0;
    overlayLineDraws(this.overlay, overlayLines);
    if (overlayLines.length) this.programs.line(overlayLines);
    this.labels.update(this.display.labels ? labelInputs({ cells: this.chunks.values(), shapes: this.shapes, hovered: this.view.hovered, selected: this.selected, hidden: this.hidden, camera: this.camera }, -cx / scale, -cy / scale, (this.width - cx) / scale, (this.height - cy) / scale) : [], this.width, this.height, this.dpr);
    this.labels.render(this.width, this.height);
    this.camera = camera;
    this.gl.flush();
  }

  /** The masks and the shapes' passes over the view of this camera and size (the canvas, or the fused texture); `dry`: only the levels they want asked for. */
  private drawShapes(dry = false): void {
    // Visible cells (the viewport in image px, grown by the widest outline or marker).
    const { x: cx, y: cy, scale } = this.camera;
    const pad = 12 / scale;
    const vx0 = -cx / scale - pad, vy0 = -cy / scale - pad, vx1 = (this.width - cx) / scale + pad, vy1 = (this.height - cy) / scale + pad;
    // the frame's lists, reused (no per-frame allocation for them)
    const { levels, dots, compacts, fills, lines } = this.lists;
    // dots and compact polygons have no outline past their bounds: their sub-cells that meet the
    // view's scissored part (a band's: `inset` in from its edges), 1 px to spare
    this.s.culledChunks = this.collectCells(vx0, vy0, vx1, vy1, levelExp(scale), this.inset > 1 ? pad + (this.inset - 1) / scale : 0);
    if (this.lists.build.length) this.compactor.poke();
    if (this.pendingBuilds.size) this.scheduleBuilds();
    if (dry) return; // the levels this view wants asked for, nothing drawn (FusedHost.prepare)
    const masks = this.maskLayer.draws();
    if (masks.length) this.programs.mask(masks);
    const oFill = this.overlay[0]!;
    // each pass: the cells' ranges, those that touch in their level's buffer joined into one draw
    for (const l of levels) if (l.fillV && l.fillI) fills.add(l.fillV.page, l.fillI.page, l.fillI.start, l.fillI.cap);
    if (fills.list.length) this.programs.fill(fills.joined());
    this.impostors?.draw();
    if (dots.list.length) this.programs.dots(dots.joined());
    if (compacts.list.length) this.programs.compact(compacts.joined());
    if (oFill.count) this.programs.fill([oFill]);
    for (const l of levels) if (l.lineV && l.lineI) lines.add(l.lineV.page, l.lineI.page, l.lineI.start, l.lineI.cap);
    if (lines.list.length) this.programs.line(lines.joined());
    this.s.shapeDraws = fills.list.length + dots.list.length + compacts.list.length + lines.list.length;
  }


  /** Runs `draw` with the programs' camera, CSS size and scissored inset set to these (an offscreen target's), then puts the view's back. */
  private withView(camera: CameraState, width: number, height: number, draw: () => void, inset = 0): void {
    const { camera: cam, width: w, height: h } = this;
    [this.camera, this.width, this.height, this.inset] = [camera, width, height, inset];
    try {
      draw();
    } finally {
      [this.camera, this.width, this.height, this.inset] = [cam, w, h, 0];
    }
  }

  /**
   * The frame's cells in view and the level each draws (into `lists.levels`), and the runs of
   * their dots and compact polygons in view. Cells with no level near the one wanted (or a stale
   * one: an edit) are built in the frame, together (buildLevels); returns the cells culled.
   */
  private collectCells(vx0: number, vy0: number, vx1: number, vy1: number, exp: number, cut: number): number {
    const { levels, cells, dots, compacts, fills, lines } = this.lists;
    for (const list of [dots, compacts, fills, lines]) list.clear();
    const t0 = performance.now();
    const culled = levelsInView(this.chunks.values(), [vx0, vy0, vx1, vy1], exp, this.s.frames, this.storeOf, this.pendingBuilds, this.lists);
    this.s.buildMs += this.lists.build.length ? performance.now() - t0 : 0;
    const imp = this.impostors;
    // the dots' and compact polygons' box: the view's, `cut` image px in from each side
    const impKey = imp ? `${this.view.transparency}|${this.display.outlineWidth}|${this.dpr}` : '', x0 = vx0 + cut, y0 = vy0 + cut, x1 = vx1 - cut, y1 = vy1 - cut;
    for (let k = 0; k < cells.length; k++) {
      const c = cells[k]!, l = levels[k]!, b = c.bounds;
      const impostor = imp && (l.dots || l.compact) ? imp.prepare(c, l, this.camera, this.dpr, impKey, this.s.frames, this) : null;
      if (impostor) {
        imp!.push(impostor);
        continue;
      }
      const inside = b[0] >= x0 && b[2] <= x1 && b[1] >= y0 && b[3] <= y1;
      if (l.dots) pushRanges(dots, l.dots, l.dotStart, l.subBounds, inside, x0, y0, x1, y1);
      if (l.compact) pushRanges(compacts, l.compact, l.compactStart, l.subBounds, inside, x0, y0, x1, y1);
    }
    return culled;
  }

  /** ImpostorHost: draws a level's dots and compact polygons whole, with this camera and CSS size (into an impostor's slot). */
  drawPasses(l: ChunkLevel, camera: CameraState, width: number, height: number): void {
    const n = SUB * SUB;
    this.withView(camera, width, height, () => {
      if (l.dots) this.programs.dots({ buf: l.dots.page.buf, offset: l.dots.start, count: l.dotStart[n]! });
      if (l.compact) this.programs.compact({ buf: l.compact.page.buf, offset: l.compact.start, count: l.compactStart[n]! });
    });
  }

  stats(): RenderStats {
    let fv = 0, lv = 0, geomBytes = 0;
    for (const c of this.chunks.values()) {
      for (const l of c.levels.values()) {
        fv += l.fillCount + l.compactStart[SUB * SUB]! + l.dotStart[SUB * SUB]!;
        lv += l.lineCount;
      }
    }
    for (const st of this.stores.values()) geomBytes += st.bytes;
    const maskBytes = this.maskLayer.bytes();
    const tile = this.options.tileSize ?? 512;
    const image = this.images.image;
    const tileBytes = image ? (image.mode === 'single' ? image.source.width * image.source.height * 4 : image.cached * tile * tile * 4) : 0;
    const mem = (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory;
    return {
      shapes: this.shapes.size,
      masks: this.maskLayer.count,
      chunks: this.chunks.size,
      impostorRenders: this.impostors?.renders ?? 0,
      ...(this.fused ?? NO_FUSED).stats(),
      compactions: this.compactor.count,
      shapeDraws: this.s.shapeDraws,
      culledChunks: this.s.culledChunks,
      fillVertices: fv,
      lineVertices: lv,
      tilesCached: image?.cached ?? 0,
      tilesLoading: image?.pending ?? 0,
      tileLevel: image?.level ?? 0,
      frames: this.s.frames,
      lastFrameMs: this.s.lastFrameMs,
      lastSceneMs: this.s.lastSceneMs,
      buildMs: this.s.buildMs,
      maskDecodeMs: this.maskLayer.decodeMs,
      kernelsLoadMs: this.maskLayer.kernelsLoadMs,
      imageLoadMs: this.images.loadMs,
      maxTextureSize: this.maxTextureSize,
      imageMode: image?.mode ?? 'none',
      labels: this.labels.drawn,
      gpuBytes: geomBytes + maskBytes + tileBytes + STATE_W * this.stateRows * 4 + (this.impostors?.bytes() ?? 0) + (this.fused?.bytes() ?? 0),
      heapBytes: mem ? mem.usedJSHeapSize : null,
      backend: this.backend,
    };
  }

  dispose(): void {
    this.disposed = true;
    if (this.buildTimer !== null) clearTimeout(this.buildTimer);
    this.compactor.dispose();
    for (const f of this.frameWaiters.splice(0)) f();
    this.images.dispose();
    this.maskLayer.dispose();
    this.warmTarget.destroy();
    this.labels.dispose();
    this.impostors?.dispose();
    this.fused?.dispose();
    this.regl.destroy();
    for (const f of this.idleWaiters.splice(0)) f();
  }
}
