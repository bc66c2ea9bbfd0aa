// Impostors (issue 35): zoomed out, a cell's dots and compact polygons are drawn once into a slot
// of a shared atlas texture and the cell is then drawn as one textured quad, until a shape of the
// cell, its selection / hover / hidden state, the transparency, the outline width, the device
// pixel ratio or the zoom (past IMPOSTOR_RESCALE) changes. The slot's texels are laid on the
// screen's pixel grid of the frame that drew it, so that frame, and every frame at the same
// camera, shows the same pixels as drawing the dots directly; a pan reuses it (resampled
// linearly).
import type { Buffer, DrawCommand, Framebuffer2D, Regl, Texture2D } from 'regl';
import type { CameraState } from '../engine';
import type { Chunk, ChunkLevel } from './cells';
import { impostorVert, labelFrag } from './shaders';

/** Side of an atlas page, device px. */
const PAGE = 2048;
/** Cells wider or taller than this on screen (device px) are drawn directly. */
export const IMPOSTOR_MAX_SIDE = 512;
/** Slot sides are multiples of this (device px): one page holds slots of one side. */
const SLOT_STEP = 64;
/** Pages kept at most (16 MB each). */
const MAX_PAGES = 4;
/** An impostor is drawn again when the zoom moved more than this many octaves from the one that drew it. */
const IMPOSTOR_RESCALE = 0.25;
/** Quad vertex: x, y (image px), u, v. */
const QUAD_STRIDE = 4;

interface Page {
  tex: Texture2D;
  fbo: Framebuffer2D;
  side: number;
  free: Slot[];
  slots: Slot[];
}

export interface Slot {
  page: Page;
  /** Top-left corner in the page, device px. */
  x: number;
  y: number;
  /** The level whose impostor it holds, or null (free). */
  owner: ChunkLevel | null;
}

/** A cell level's impostor: its slot, the image rect its texels cover and what it was drawn with. */
export interface Impostor {
  slot: Slot;
  /** x, y, w, h in image px of the slot's whole side. */
  rect: [number, number, number, number];
  scale: number;
  /** Chunk.gen and the display key at the draw. */
  gen: number;
  key: string;
}

/** What an impostor draw needs from the renderer: the camera and size to draw into, and the passes. */
export interface ImpostorHost {
  /** Draws `level`'s dots and compact polygons with this camera and CSS size (the target and viewport are bound). */
  drawPasses(level: ChunkLevel, camera: CameraState, width: number, height: number): void;
}

/** Frees a slot: its level was dropped, or its impostor is drawn elsewhere. */
export function releaseSlot(slot: Slot): void {
  if (!slot.owner) return;
  slot.owner.impostor = null;
  slot.owner = null;
  slot.page.free.push(slot);
}

export class ImpostorAtlas {
  private readonly pages: Page[] = [];
  private readonly target: DrawCommand;
  private readonly clearSlot: DrawCommand;
  private readonly drawQuads: DrawCommand;
  private readonly clearBuf: Buffer;
  /** Per page: the frame's quads, in a buffer reused across frames. */
  private readonly quads = new Map<Page, { data: Float32Array; n: number; buf: Buffer }>();
  /** Impostors drawn (again) since the renderer started: tests and benchmarks. */
  renders = 0;

  constructor(private readonly regl: Regl, cam: { u_cam: () => number[]; u_view: () => number[] }) {
    this.clearBuf = regl.buffer(new Float32Array([-1, -1, 1, -1, -1, 1, -1, 1, 1, -1, 1, 1]));
    const box = regl.prop<any, 'box'>('box');
    this.target = regl({ framebuffer: regl.prop<any, 'fbo'>('fbo'), viewport: box, scissor: { enable: true, box } });
    this.clearSlot = regl({
      vert: 'attribute vec2 a_p; void main() { gl_Position = vec4(a_p, 0.0, 1.0); }',
      frag: 'precision mediump float; void main() { gl_FragColor = vec4(0.0); }',
      attributes: { a_p: this.clearBuf },
      count: 6,
      blend: { enable: false },
      depth: { enable: false },
    });
    const F = 4;
    this.drawQuads = regl({
      vert: impostorVert,
      frag: labelFrag, // the same plain texture read as the labels'
      attributes: {
        a_pos: { buffer: regl.prop<any, 'buf'>('buf'), stride: QUAD_STRIDE * F, offset: 0 },
        a_uv: { buffer: regl.prop<any, 'buf'>('buf'), stride: QUAD_STRIDE * F, offset: 2 * F },
      },
      uniforms: { ...cam, u_tex: regl.prop<any, 'tex'>('tex') },
      count: regl.prop<any, 'count'>('count'),
      blend: { enable: true, func: { src: 'one', dst: 'one minus src alpha' } },
      depth: { enable: false },
    });
  }

  /** Bytes of the pages (GPU memory). */
  bytes(): number {
    return this.pages.length * PAGE * PAGE * 4;
  }

  /**
   * The level's impostor for this frame, drawn (again) first when it is missing or stale; null when
   * the cell is too large on screen or no slot is free (then the caller draws it directly).
   */
  prepare(c: Chunk, l: ChunkLevel, camera: CameraState, dpr: number, key: string, frame: number, host: ImpostorHost): Impostor | null {
    const b = c.bounds, s = camera.scale;
    const need = Math.ceil((Math.max(b[2] - b[0], b[3] - b[1]) * s + 4) * dpr);
    if (need > IMPOSTOR_MAX_SIDE) return null;
    let imp = l.impostor ?? null;
    if (imp && imp.gen === c.gen && imp.key === key && Math.abs(Math.log2(s / imp.scale)) <= IMPOSTOR_RESCALE && imp.slot.owner === l) return imp;
    const side = Math.ceil(need / SLOT_STEP) * SLOT_STEP;
    let slot = imp && imp.slot.owner === l && imp.slot.page.side >= need ? imp.slot : null;
    if (!slot) {
      if (imp && imp.slot.owner === l) this.release(imp.slot);
      slot = this.alloc(side, frame);
      if (!slot) {
        l.impostor = null;
        return null;
      }
      slot.owner = l;
    }
    const pageSide = slot.page.side;
    // The slot's texels on the screen's pixel grid: its corner at a whole device px, 2 px before the bounds.
    const ox = Math.floor((b[0] * s + camera.x) * dpr) - 2, oy = Math.floor((b[1] * s + camera.y) * dpr) - 2;
    const local: CameraState = { scale: s, x: camera.x - ox / dpr, y: camera.y - oy / dpr };
    this.target({ fbo: slot.page.fbo, box: { x: slot.x, y: slot.y, width: pageSide, height: pageSide } }, () => {
      this.clearSlot();
      host.drawPasses(l, local, pageSide / dpr, pageSide / dpr);
    });
    this.renders++;
    imp = { slot, rect: [(ox / dpr - camera.x) / s, (oy / dpr - camera.y) / s, pageSide / dpr / s, pageSide / dpr / s], scale: s, gen: c.gen, key };
    l.impostor = imp;
    return imp;
  }

  /** Adds an impostor's quad to this frame's draws. */
  push(imp: Impostor): void {
    const page = imp.slot.page;
    let q = this.quads.get(page);
    if (!q) this.quads.set(page, (q = { data: new Float32Array(64 * 6 * QUAD_STRIDE), n: 0, buf: this.regl.buffer({ usage: 'dynamic', type: 'float', length: 0 }) }));
    if ((q.n + 1) * 6 * QUAD_STRIDE > q.data.length) {
      const grown = new Float32Array(q.data.length * 2);
      grown.set(q.data);
      q.data = grown;
    }
    const [x, y, w, h] = imp.rect;
    // the slot in the page's texture: framebuffer rows run bottom-up, as the viewport's
    const u0 = imp.slot.x / PAGE, v0 = imp.slot.y / PAGE, d = page.side / PAGE;
    // the slot's viewport row 0 is its bottom: image y grows down, so v runs from v0 + d down to v0
    const corners = [[0, 0], [1, 0], [0, 1], [0, 1], [1, 0], [1, 1]] as const;
    let at = q.n * 6 * QUAD_STRIDE;
    for (const [cx, cy] of corners) {
      q.data[at++] = x + cx * w;
      q.data[at++] = y + cy * h;
      q.data[at++] = u0 + cx * d;
      q.data[at++] = v0 + (1 - cy) * d;
    }
    q.n++;
  }

  /** Draws the frame's quads (one draw per page) and forgets them. */
  draw(): void {
    for (const [page, q] of this.quads) {
      if (!q.n) continue;
      q.buf({ data: q.data.subarray(0, q.n * 6 * QUAD_STRIDE), usage: 'dynamic' });
      this.drawQuads({ buf: q.buf, tex: page.tex, count: q.n * 6 });
      q.n = 0;
    }
  }

  /** Frees a slot. */
  release(slot: Slot): void {
    releaseSlot(slot);
  }

  private alloc(side: number, frame: number): Slot | null {
    for (const p of this.pages) if (p.side === side && p.free.length) return p.free.pop()!;
    if (this.pages.length < MAX_PAGES) return this.newPage(side).free.pop()!;
    // the least recently drawn slot of that side not drawn in this frame
    let best: Slot | null = null;
    for (const p of this.pages) {
      if (p.side !== side) continue;
      for (const sl of p.slots) if (sl.owner && sl.owner.used < frame && (!best || sl.owner.used < best.owner!.used)) best = sl;
    }
    if (best) {
      best.owner!.impostor = null;
      best.owner = null;
      return best;
    }
    // a page of another side with no slot drawn in this frame becomes one of this side
    const idle = this.pages.find((p) => p.slots.every((sl) => !sl.owner || sl.owner.used < frame));
    if (!idle) return null;
    for (const sl of idle.slots) if (sl.owner) sl.owner.impostor = null;
    this.pages.splice(this.pages.indexOf(idle), 1);
    idle.fbo.destroy();
    idle.tex.destroy();
    return this.newPage(side).free.pop()!;
  }

  private newPage(side: number): Page {
    const tex = this.regl.texture({ width: PAGE, height: PAGE, min: 'linear', mag: 'linear' });
    const fbo = this.regl.framebuffer({ color: tex, depthStencil: false });
    const page: Page = { tex, fbo, side, free: [], slots: [] };
    const n = Math.floor(PAGE / side);
    for (let j = n - 1; j >= 0; j--) {
      for (let i = n - 1; i >= 0; i--) {
        const sl: Slot = { page, x: i * side, y: j * side, owner: null };
        page.slots.push(sl);
        page.free.push(sl);
      }
    }
    this.pages.push(page);
    return page;
  }

  dispose(): void {
    for (const p of this.pages) {
      p.fbo.destroy();
      p.tex.destroy();
    }
    this.pages.length = 0;
    for (const q of this.quads.values()) q.buf.destroy();
    this.clearBuf.destroy();
  }
}
