// The renderer shared by the render worker and the main-thread fallback: regl on a WebGL
// context of an OffscreenCanvas or an HTMLCanvasElement.
//
// Shapes live in chunks of CHUNK slots; each chunk owns one fill and one line buffer, rebuilt
// (concatenating the cached per-shape arrays) only when one of its shapes changed. Selection,
// hover and hidden state live in a small RGBA texture indexed by slot, so view changes upload a
// few bytes and never touch geometry; a pan or zoom changes only the camera uniform.
import createREGL, { type Buffer, type DrawCommand, type Elements, type Regl, type Texture2D } from 'regl';
import type { CameraState } from '../engine';
import { loadKernels, type Kernels } from '../kernels';
import { FILL_STRIDE, LINE_STRIDE, QUAD_VERTS, quadIndices, boxGeometry, handleGeometry, keypointGeometry, polygonGeometry, polylineGeometry, pushRing, type ShapeGeometry } from './geometry';
import type { ImageSourceMsg, PackedScene, RenderStats, RenderView, RendererOptions } from './protocol';
import { colorFrag, fillVert, imageFrag, lineFrag, lineVert, maskFrag, quadVert } from './shaders';
import { ImageLayer, openSource } from './tiles';

export const CHUNK = 2048;
const STATE_W = 1024;
export const SELECTED_FILL_ALPHA = 0x1a / 255;
export const HOVER_FILL_ALPHA = 0.1;
export const MASK_COLOR = 0x3b5bdb;
const HALO: [number, number, number, number] = [0.06 * 0.55, 0.07 * 0.55, 0.1 * 0.55, 0.55];
const HANDLE_HALO = [0.1, 0.12, 0.16, 1];
const LINE_HW = 0.75;
const HALO_W = 1;
const MAX_HANDLE_SHAPES = 2000;

interface MaskEntry {
  texture: Texture2D | null;
  rect: [number, number, number, number];
}

interface Shape {
  id: string;
  z: number;
  type: number;
  color: number;
  slot: number;
  geom: ShapeGeometry;
  mask: MaskEntry | null;
}

interface Chunk {
  shapes: Set<Shape>;
  fill: Buffer | null;
  line: Buffer | null;
  fillCount: number;
  lineCount: number;
  dirty: boolean;
}

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
  private selected = new Set<string>();
  private hidden = new Set<string>();
  private readonly shapes = new Map<string, Shape>();
  private readonly bySlot: (Shape | undefined)[] = [];
  private readonly chunks: Chunk[] = [];
  private nextSlot = 0;
  private stateData = new Uint8Array(STATE_W * 4 * 4);
  private stateRows = 4;
  private readonly stateTex: Texture2D;
  private stateDirty = true;
  private masks: Shape[] = [];
  private masksSorted = true;
  private readonly maskQueue: Shape[] = [];
  private kernels: Kernels | null = null;
  private kernelsLoading: Promise<Kernels> | null = null;
  private image: ImageLayer | null = null;
  private imageLoading: Promise<void> | null = null;
  private overlayFill: Buffer;
  private overlayLine: Buffer;
  private overlayHandles: Buffer;
  private overlayCounts = { fill: 0, line: 0, handles: 0 };
  private overlayDirty = true;
  private frameRequested = false;
  private readonly idleWaiters: (() => void)[] = [];
  private readonly quad: Buffer;
  private quadElements: Elements;
  private quadCapacity = 0;
  private readonly drawFill: DrawCommand;
  private readonly drawLine: DrawCommand;
  private readonly drawImage: DrawCommand;
  private readonly drawMask: DrawCommand;
  private readonly background: [number, number, number];
  private disposed = false;
  /** Frame durations (ms, including a GPU finish when `measure` is on). */
  readonly frameTimes: number[] = [];
  measure = false;
  private readonly probe = new Uint8Array(4);
  private s = { frames: 0, lastFrameMs: 0, lastSceneMs: 0, maskDecodeMs: 0, kernelsLoadMs: 0, imageLoadMs: 0 };

  constructor(
    private readonly canvas: Canvas,
    private readonly options: RendererOptions,
    readonly backend: 'worker' | 'main',
  ) {
    this.width = options.width;
    this.height = options.height;
    this.dpr = options.dpr;
    this.background = options.background ?? [0x1b / 255, 0x1f / 255, 0x2a / 255];
    const gl = canvas.getContext('webgl', { alpha: false, antialias: true, premultipliedAlpha: true, preserveDrawingBuffer: false, depth: false, stencil: false }) as WebGLRenderingContext | null;
    if (!gl) throw new Error('WebGL is not available');
    this.gl = gl;
    this.regl = createREGL({ gl, extensions: ['OES_element_index_uint'] });
    this.maxTextureSize = Math.min(gl.getParameter(gl.MAX_TEXTURE_SIZE) as number, options.maxTextureSize ?? 4096);
    this.resize(options.width, options.height, options.dpr);
    const regl = this.regl;
    this.stateTex = regl.texture({ width: STATE_W, height: this.stateRows, data: this.stateData, min: 'nearest', mag: 'nearest' });
    this.overlayFill = regl.buffer({ usage: 'dynamic', type: 'float', length: 0 });
    this.overlayLine = regl.buffer({ usage: 'dynamic', type: 'float', length: 0 });
    this.overlayHandles = regl.buffer({ usage: 'dynamic', type: 'float', length: 0 });
    this.quad = regl.buffer(new Float32Array([0, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 1]));
    this.quadElements = regl.elements({ data: new Uint32Array(0), type: 'uint32', primitive: 'triangles', usage: 'static' });
    this.ensureQuads(CHUNK * 32);
    const cam = {
      u_cam: () => [this.camera.scale, this.camera.x, this.camera.y],
      u_view: () => [this.width, this.height],
      u_state: () => this.stateTex,
      u_stateSize: () => [STATE_W, this.stateRows],
    };
    const blend = { enable: true, func: { src: 'one', dst: 'one minus src alpha' } } as const;
    const F = 4;
    this.drawFill = regl({
      vert: fillVert,
      frag: colorFrag,
      attributes: {
        a_pos: { buffer: regl.prop<any, 'buf'>('buf'), stride: FILL_STRIDE * F, offset: 0 },
        a_color: { buffer: regl.prop<any, 'buf'>('buf'), stride: FILL_STRIDE * F, offset: 2 * F },
        a_slot: { buffer: regl.prop<any, 'buf'>('buf'), stride: FILL_STRIDE * F, offset: 3 * F },
      },
      uniforms: { ...cam, u_alpha: () => 1 - this.view.transparency / 100, u_selAlpha: SELECTED_FILL_ALPHA, u_hoverAlpha: HOVER_FILL_ALPHA },
      count: regl.prop<any, 'count'>('count'),
      blend,
      depth: { enable: false },
    });
    this.drawLine = regl({
      vert: lineVert,
      frag: lineFrag,
      attributes: {
        a_pos: { buffer: regl.prop<any, 'buf'>('buf'), stride: LINE_STRIDE * F, offset: 0 },
        a_off: { buffer: regl.prop<any, 'buf'>('buf'), stride: LINE_STRIDE * F, offset: 2 * F },
        a_side: { buffer: regl.prop<any, 'buf'>('buf'), stride: LINE_STRIDE * F, offset: 4 * F },
        a_color: { buffer: regl.prop<any, 'buf'>('buf'), stride: LINE_STRIDE * F, offset: 5 * F },
        a_slot: { buffer: regl.prop<any, 'buf'>('buf'), stride: LINE_STRIDE * F, offset: 6 * F },
      },
      uniforms: {
        ...cam,
        u_hw: regl.prop<any, 'hw'>('hw'),
        u_halo: HALO_W,
        u_selScale: 1.6,
        u_marker: regl.prop<any, 'marker'>('marker'),
        u_haloColor: regl.prop<any, 'halo'>('halo'),
      },
      elements: () => this.quadElements,
      count: regl.prop<any, 'count'>('count'),
      blend,
      depth: { enable: false },
    });
    const quadAttrs = { a_uv: this.quad };
    const quadUniforms = { u_cam: cam.u_cam, u_view: cam.u_view, u_rect: regl.prop<any, 'rect'>('rect'), u_tex: regl.prop<any, 'tex'>('tex') };
    this.drawImage = regl({ vert: quadVert, frag: imageFrag, attributes: quadAttrs, uniforms: quadUniforms, count: 6, depth: { enable: false } });
    this.drawMask = regl({
      vert: quadVert,
      frag: maskFrag,
      attributes: quadAttrs,
      uniforms: { ...quadUniforms, u_color: regl.prop<any, 'color'>('color') },
      count: 6,
      blend,
      depth: { enable: false },
    });
    this.requestFrame();
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

  async setImage(msg: ImageSourceMsg): Promise<void> {
    this.image?.dispose();
    this.image = null;
    const ti = performance.now();
    const p = (async () => {
      const source = await openSource(msg);
      if (!source || this.disposed) return;
      this.image = new ImageLayer(this.regl, source, this.maxTextureSize, this.options.tileSize ?? 512, this.options.maxTiles ?? 160, () => this.requestFrame());
      await this.image.whenSingleReady();
      this.s.imageLoadMs = performance.now() - ti;
    })();
    this.imageLoading = p;
    try {
      await p;
    } finally {
      if (this.imageLoading === p) this.imageLoading = null;
      this.requestFrame();
    }
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
      const rings = p.ringCounts[i]!;
      if (type === 1 || type === 2) {
        let pts = 0;
        for (let r = 0; r < rings; r++) pts += p.ringLens[ringAt + r]!;
        const coords = p.coords.subarray(coordAt, coordAt + pts * 2);
        geom = type === 1 ? polygonGeometry(coords, p.ringLens.subarray(ringAt, ringAt + rings), color, slot) : polylineGeometry(coords, pts, color, slot);
        ringAt += rings;
        coordAt += pts * 2;
      } else if (type === 3) {
        geom = keypointGeometry(rx, ry, color, slot);
      } else if (type === 0) {
        geom = boxGeometry(rx, ry, rw, rh, color, slot);
      } else {
        geom = { fill: new Float32Array(0), line: new Float32Array(0), handles: new Float32Array([rx, ry, rx + rw, ry, rx + rw, ry + rh, rx, ry + rh]) };
      }
      if (s) {
        if (s.mask) this.dropMask(s);
        s.z = p.z[i]!;
        s.type = type;
        s.color = color;
        s.geom = geom;
      } else {
        s = { id, z: p.z[i]!, type, color, slot, geom, mask: null };
        this.shapes.set(id, s);
        this.bySlot[slot] = s;
        this.chunkOf(slot).shapes.add(s);
      }
      this.chunkOf(slot).dirty = true;
      const m = maskOf.get(i);
      if (m) {
        s.mask = { texture: null, rect: [0, 0, 0, 0] };
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

  private chunkOf(slot: number): Chunk {
    const c = Math.floor(slot / CHUNK);
    while (this.chunks.length <= c) this.chunks.push({ shapes: new Set(), fill: null, line: null, fillCount: 0, lineCount: 0, dirty: false });
    return this.chunks[c]!;
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
    const c = this.chunkOf(s.slot);
    c.shapes.delete(s);
    c.dirty = true;
    if (s.mask) this.dropMask(s);
    this.stateData[s.slot * 4] = 255; // a freed slot draws nothing
    this.stateDirty = true;
  }

  private dropMask(s: Shape): void {
    s.mask?.texture?.destroy();
    s.mask = null;
    this.masks = this.masks.filter((m) => m !== s);
  }

  private clearShapes(): void {
    for (const c of this.chunks) {
      c.fill?.destroy();
      c.line?.destroy();
    }
    this.chunks.length = 0;
    for (const s of this.masks) s.mask?.texture?.destroy();
    this.masks = [];
    this.maskQueue.length = 0;
    this.shapes.clear();
    this.bySlot.length = 0;
    this.nextSlot = 0;
    this.stateData.fill(0);
    this.stateDirty = true;
  }

  private rebuildChunk(c: Chunk): void {
    const list = [...c.shapes].sort((a, b) => a.z - b.z);
    let nf = 0, nl = 0;
    for (const s of list) {
      nf += s.geom.fill.length;
      nl += s.geom.line.length;
    }
    const fill = new Float32Array(nf), line = new Float32Array(nl);
    nf = 0;
    nl = 0;
    for (const s of list) {
      fill.set(s.geom.fill, nf);
      nf += s.geom.fill.length;
      line.set(s.geom.line, nl);
      nl += s.geom.line.length;
    }
    if (c.fill) c.fill(fill); else c.fill = this.regl.buffer(fill);
    if (c.line) c.line(line); else c.line = this.regl.buffer(line);
    c.fillCount = fill.length / FILL_STRIDE;
    c.lineCount = line.length / LINE_STRIDE;
    this.ensureQuads(c.lineCount / QUAD_VERTS);
    c.dirty = false;
  }

  /** One shared index buffer (0 1 2 2 1 3 per quad) serves every line buffer. */
  private ensureQuads(quads: number): void {
    if (quads <= this.quadCapacity) return;
    let cap = Math.max(1024, this.quadCapacity);
    while (cap < quads) cap *= 2;
    this.quadElements({ data: quadIndices(cap), type: 'uint32', primitive: 'triangles' });
    this.quadCapacity = cap;
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
        const { texture, rect } = decodeMaskTexture(this.regl, this.kernels, entry.rle);
        entry.texture = texture;
        entry.rect = rect;
        delete entry.rle;
      } catch (err) {
        console.error('Error rendering mask:', err);
      }
    }
    this.s.maskDecodeMs += performance.now() - t0;
    this.requestFrame();
    if (this.maskQueue.length) setTimeout(() => this.decodeMasks(), 0);
  }

  // ------------------------------------------------------------------ overlay

  private rebuildOverlay(): void {
    const fill: number[] = [], line: number[] = [], handles: number[] = [];
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
      if (d.closed && count >= 3) {
        const g = polygonGeometry(d.points, [count], d.color, -2);
        for (const v of g.fill) fill.push(v);
      }
      if (count >= 2) pushRing(line, d.points, 0, count, d.closed, d.color, -1);
      handleGeometry(d.points, 0xffffff, handles);
    }
    const m = this.view.marquee;
    if (m) {
      const g = boxGeometry(m.x, m.y, m.width, m.height, 0x3b5bdb, -2);
      for (const v of g.fill) fill.push(v);
      for (const v of g.line) line.push(v);
    }
    this.overlayFill(new Float32Array(fill));
    this.overlayLine(new Float32Array(line));
    this.overlayHandles(new Float32Array(handles));
    this.overlayCounts = { fill: fill.length / FILL_STRIDE, line: line.length / LINE_STRIDE, handles: handles.length / LINE_STRIDE };
    this.ensureQuads(Math.max(this.overlayCounts.line, this.overlayCounts.handles) / QUAD_VERTS);
    this.overlayDirty = false;
  }

  // ------------------------------------------------------------------ frames

  requestFrame(): void {
    if (this.frameRequested || this.disposed) return;
    this.frameRequested = true;
    const raf = (globalThis as { requestAnimationFrame?: (cb: () => void) => number }).requestAnimationFrame;
    if (raf) raf(() => this.frame());
    else setTimeout(() => this.frame(), 0);
  }

  private frame(): void {
    this.frameRequested = false;
    if (this.disposed) return;
    const t0 = performance.now();
    this.draw();
    if (this.measure) this.gl.readPixels(0, 0, 1, 1, this.gl.RGBA, this.gl.UNSIGNED_BYTE, this.probe); // waits for the GPU
    const dt = performance.now() - t0;
    this.s.lastFrameMs = dt;
    this.s.frames++;
    this.frameTimes.push(dt);
    if (this.frameTimes.length > 2000) this.frameTimes.splice(0, 1000);
    if (this.isIdle()) {
      const w = this.idleWaiters.splice(0);
      for (const f of w) f();
    }
  }

  private isIdle(): boolean {
    return !this.frameRequested && !this.imageLoading && (this.image?.pending ?? 0) === 0 && this.maskQueue.length === 0 && !(this.kernelsLoading && !this.kernels && this.masks.length);
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
    for (const c of this.chunks) if (c.dirty) this.rebuildChunk(c);
    if (this.overlayDirty) this.rebuildOverlay();
    const [r, g, b] = this.background;
    regl.clear({ color: [r, g, b, 1] });
    if (this.image) {
      const quads = this.image.visible(this.camera, this.width, this.height, this.dpr);
      if (quads.length) this.drawImage(quads);
    }
    if (this.masks.length) {
      if (!this.masksSorted) {
        this.masks.sort((a, b) => a.z - b.z);
        this.masksSorted = true;
      }
      const fa = 1 - this.view.transparency / 100;
      const props: { tex: Texture2D; rect: number[]; color: number[] }[] = [];
      const mr = ((MASK_COLOR >> 16) & 255) / 255, mg = ((MASK_COLOR >> 8) & 255) / 255, mb = (MASK_COLOR & 255) / 255;
      for (const s of this.masks) {
        const m = s.mask;
        if (!m?.texture || this.hidden.has(s.id)) continue;
        const a = this.view.hovered === s.id ? HOVER_FILL_ALPHA : this.selected.has(s.id) ? Math.max(SELECTED_FILL_ALPHA, fa * 0.5) : fa;
        props.push({ tex: m.texture, rect: m.rect, color: [mr * a, mg * a, mb * a, a] });
      }
      if (props.length) this.drawMask(props);
    }
    const fills: { buf: Buffer; count: number }[] = [];
    for (const c of this.chunks) {
      if (c.fillCount && c.fill) fills.push({ buf: c.fill, count: c.fillCount });
    }
    if (this.overlayCounts.fill) fills.push({ buf: this.overlayFill, count: this.overlayCounts.fill });
    if (fills.length) this.drawFill(fills);
    // count = indices: 6 per quad of 4 vertices
    const lines: { buf: Buffer; count: number; hw: number; marker: number; halo: number[] }[] = [];
    for (const c of this.chunks) if (c.lineCount && c.line) lines.push({ buf: c.line, count: (c.lineCount / 4) * 6, hw: LINE_HW, marker: 3, halo: HALO });
    if (this.overlayCounts.line) lines.push({ buf: this.overlayLine, count: (this.overlayCounts.line / 4) * 6, hw: LINE_HW, marker: 3, halo: HALO });
    if (this.overlayCounts.handles) lines.push({ buf: this.overlayHandles, count: (this.overlayCounts.handles / 4) * 6, hw: LINE_HW, marker: 3, halo: HANDLE_HALO });
    if (lines.length) this.drawLine(lines);
    this.gl.flush();
  }

  stats(): RenderStats {
    let fv = 0, lv = 0, maskBytes = 0;
    for (const c of this.chunks) {
      fv += c.fillCount;
      lv += c.lineCount;
    }
    for (const m of this.masks) if (m.mask) maskBytes += m.mask.rect[2] * m.mask.rect[3];
    const tile = this.options.tileSize ?? 512;
    const tileBytes = this.image ? (this.image.mode === 'single' ? this.image.source.width * this.image.source.height * 4 : this.image.cached * tile * tile * 4) : 0;
    const mem = (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory;
    return {
      shapes: this.shapes.size,
      masks: this.masks.length,
      chunks: this.chunks.length,
      fillVertices: fv,
      lineVertices: lv,
      tilesCached: this.image?.cached ?? 0,
      tilesLoading: this.image?.pending ?? 0,
      tileLevel: this.image?.level ?? 0,
      frames: this.s.frames,
      lastFrameMs: this.s.lastFrameMs,
      lastSceneMs: this.s.lastSceneMs,
      maskDecodeMs: this.s.maskDecodeMs,
      kernelsLoadMs: this.s.kernelsLoadMs,
      imageLoadMs: this.s.imageLoadMs,
      maxTextureSize: this.maxTextureSize,
      imageMode: this.image?.mode ?? 'none',
      gpuBytes: fv * FILL_STRIDE * 4 + lv * LINE_STRIDE * 4 + maskBytes + tileBytes + STATE_W * this.stateRows * 4,
      heapBytes: mem ? mem.usedJSHeapSize : null,
      backend: this.backend,
    };
  }

  dispose(): void {
    this.disposed = true;
    this.image?.dispose();
    this.regl.destroy();
    for (const f of this.idleWaiters.splice(0)) f();
  }
}

/** Decodes only the mask's bounding box into a LUMINANCE texture (column-major, transposed). */
function decodeMaskTexture(regl: Regl, k: Kernels, rle: MaskRle): { texture: Texture2D; rect: [number, number, number, number] } {
  const { rect, data } = cropMask(k, rle);
  const [, , w, h] = rect;
  const texture = regl.texture({ width: Math.max(1, h), height: Math.max(1, w), data, format: 'luminance', type: 'uint8', alignment: 1, min: 'nearest', mag: 'nearest', wrapS: 'clamp', wrapT: 'clamp' });
  return { texture, rect };
}

type MaskRle = { size: [number, number]; counts: number[] | Uint32Array | string };
type Crop = { rect: [number, number, number, number]; data: Uint8Array };

// Until src/kernels exposes a public bbox-crop decode, reach the exported rleBBox /
// rleDecodeCrop directly (the same calls its maskToPolygons makes); else a full decode + copy.
export function cropMask(k: Kernels, rle: MaskRle): Crop {
  const [H, W] = rle.size;
  const empty: Crop = { rect: [0, 0, 0, 0], data: new Uint8Array(1) };
  const priv = k as unknown as {
    ex?: { rleBBox(c: number, m: number, h: number, out: number): void; rleDecodeCrop(c: number, m: number, h: number, w: number, x0: number, y0: number, cw: number, ch: number, out: number): number; memory: WebAssembly.Memory };
    scoped?: (fn: (alloc: (bytes: number) => number) => Crop) => Crop;
    putCounts?(counts: unknown, alloc: (bytes: number) => number): [number, number];
  };
  if (priv.ex && priv.scoped && priv.putCounts) {
    const ex = priv.ex;
    return priv.scoped.call(k, (alloc): Crop => {
      const [counts, m] = priv.putCounts!.call(k, rle.counts, alloc);
      const box = alloc(16);
      ex.rleBBox(counts, m, H, box);
      const b = new Int32Array(ex.memory.buffer, box, 4);
      const x0 = b[0]!, y0 = b[1]!, bw = b[2]!, bh = b[3]!;
      if (!bw || !bh || x0 + bw > W || y0 + bh > H) return empty;
      const crop = alloc(bw * bh);
      if (ex.rleDecodeCrop(counts, m, H, W, x0, y0, bw, bh, crop) < 0) throw new Error('RLE decode failed');
      return { rect: [x0, y0, bw, bh], data: new Uint8Array(ex.memory.buffer, crop, bw * bh).slice() };
    });
  }
  const full = k.decodeView(rle);
  const b = k.bbox(rle);
  if (!b.width || !b.height) return empty;
  const out = new Uint8Array(b.width * b.height);
  for (let x = 0; x < b.width; x++) out.set(full.subarray((b.x + x) * H + b.y, (b.x + x) * H + b.y + b.height), x * b.height);
  return { rect: [b.x, b.y, b.width, b.height], data: out };
}
