// One set of GPU buffers per level of detail for all cells (issue 35 §2). A cell's geometry at a
// level is a range of its level's shared buffers, so a frame draws each pass in a few calls (runs
// of adjacent ranges) instead of one per cell, and an edit rewrites its cell's range in place
// (bufferSubData) when the new geometry fits, instead of making new buffers.
//
// A level's buffers are pages: WebGL 1 cannot copy one buffer into another, so a full page is not
// grown but joined by a new one (each at least the size of all before it, so a level has a few
// pages). Within a page, ranges are handed out first fit; a range drawn whole covers its capacity,
// so the part past what it holds is written harmless (blank) whenever it is rewritten.
import type { Buffer, Elements, Regl } from 'regl';

/** Elements a page holds at least (a new page twice all its level's pages before it), and at most unless one range needs more. */
const MIN_PAGE = 1 << 12, MAX_PAGE = 1 << 21;

/** A run of one page: `start` and `cap` in elements (vertices, or indices of an index page). */
export interface Range {
  page: Arena;
  start: number;
  cap: number;
}

/**
 * One GPU buffer (vertices of `stride` floats, or uint32 indices when `stride` is 0) with its
 * free list. `blank`: what one element of an unused range holds (drawn, it shows nothing).
 */
export class Arena {
  readonly buf: Buffer | Elements;
  private top = 0;
  private live = 0;
  private readonly free: { start: number; cap: number }[] = [];

  constructor(regl: Regl, readonly size: number, readonly stride: number, private readonly blank: number[]) {
    const bytes = size * Math.max(1, stride) * 4;
    this.buf = stride ? regl.buffer({ usage: 'dynamic', type: 'float', length: bytes }) : regl.elements({ usage: 'dynamic', type: 'uint32', length: bytes, primitive: 'triangles' });
  }

  get empty(): boolean {
    return this.live === 0;
  }

  /** Elements free at the page's end. */
  get room(): number {
    return this.size - this.top;
  }

  /** A range of `n` elements (the smallest free one that fits, else the page's end), or null when full. */
  alloc(n: number): Range | null {
    let best = -1;
    for (let k = 0; k < this.free.length; k++) if (this.free[k]!.cap >= n && (best < 0 || this.free[k]!.cap < this.free[best]!.cap)) best = k;
    let start: number;
    if (best >= 0) {
      const f = this.free[best]!;
      start = f.start;
      if (f.cap === n) this.free.splice(best, 1);
      else {
        f.start += n;
        f.cap -= n;
      }
    } else if (this.top + n <= this.size) {
      start = this.top;
      this.top += n;
    } else return null;
    this.live++;
    return { page: this, start, cap: n };
  }

  release(r: Range): void {
    this.live--;
    if (!this.live) {
      this.top = 0;
      this.free.length = 0;
    } else if (r.cap) this.free.push({ start: r.start, cap: r.cap });
  }

  /** Writes `data` at the range's start and blanks the rest of it. */
  write(r: Range, data: Float32Array | Uint32Array): void {
    const per = Math.max(1, this.stride), n = data.length / per;
    if (n > r.cap) throw new Error('range overflow');
    let out = data;
    if (n < r.cap) {
      out = this.stride ? new Float32Array(r.cap * per) : new Uint32Array(r.cap);
      out.set(data);
      if (this.blank.some((x) => x !== 0)) for (let k = n; k < r.cap; k++) out.set(this.blank, k * per);
    }
    if (out.length) this.buf.subdata(out, r.start * per * 4);
  }

  destroy(): void {
    this.buf.destroy();
  }
}

/** The pages of one kind of buffer at one level: ranges come from the first page with room, or a new one. */
export class Pool {
  readonly pages: Arena[] = [];

  constructor(private readonly regl: Regl, readonly stride: number, private readonly blank: number[] = []) {}

  alloc(n: number): Range {
    for (const p of this.pages) {
      const r = p.alloc(n);
      if (r) return r;
    }
    return this.addPage(n).alloc(n)!;
  }

  /**
   * Room for `n` more elements at one page's end, so ranges allocated next for a batch of cells
   * lie one after another (drawn as one run).
   */
  reserve(n: number): void {
    if (n > 0 && !this.pages.some((p) => p.room >= n)) this.addPage(n);
  }

  private addPage(n: number): Arena {
    const before = this.pages.reduce((a, p) => a + p.size, 0);
    const page = new Arena(this.regl, Math.max(n, Math.min(MAX_PAGE, Math.max(MIN_PAGE, 2 * before))), this.stride, this.blank);
    this.pages.push(page);
    return page;
  }

  /** Frees a range; a page left empty is destroyed (its level keeps the others). */
  release(r: Range): void {
    r.page.release(r);
    if (r.page.empty) {
      const k = this.pages.indexOf(r.page);
      if (k >= 0) this.pages.splice(k, 1);
      r.page.destroy();
    }
  }

  /** `r` when `n` elements fit in it, else a new range (`r` released). */
  refit(r: Range | null, n: number): Range {
    if (r && n <= r.cap) return r;
    if (r) this.release(r);
    return this.alloc(n);
  }

  get bytes(): number {
    return this.pages.reduce((a, p) => a + p.size * Math.max(1, p.stride) * 4, 0);
  }

  destroy(): void {
    for (const p of this.pages) p.destroy();
    this.pages.length = 0;
  }
}

/** A draw of part of a page: `offset` and `count` in elements. */
export interface Run {
  buf: Buffer;
  idx?: Elements;
  /** The page `offset` counts in (the index page of an indexed draw), and the vertices' page. */
  page: Arena;
  vpage: Arena;
  offset: number;
  count: number;
  /** Order of the first draw joined into it (the cells' order: see joinRuns). */
  seq: number;
}

/**
 * Sorts a pass's draws by page and offset and joins those that touch (in place; returns the new
 * length). Cells laid out in a page one after another are then drawn in one call. The joined
 * draws keep the order their first cells were added in, so a cell whose range moved (an edit that
 * grew it) still paints where it did among the others.
 */
export function joinRuns(runs: Run[]): number {
  if (runs.length < 2) return runs.length;
  runs.sort((a, b) => (a.page !== b.page ? pageOrder(a.page) - pageOrder(b.page) : a.vpage !== b.vpage ? pageOrder(a.vpage) - pageOrder(b.vpage) : a.offset - b.offset));
  let n = 0;
  for (let k = 1; k < runs.length; k++) {
    const a = runs[n]!, b = runs[k]!;
    if (a.page === b.page && a.vpage === b.vpage && a.offset + a.count === b.offset) {
      a.count += b.count;
      a.seq = Math.min(a.seq, b.seq);
    } else runs[++n] = b;
  }
  runs.length = n + 1;
  runs.sort((a, b) => a.seq - b.seq);
  return n + 1;
}

const order = new WeakMap<Arena, number>();
let nextOrder = 0;
function pageOrder(p: Arena): number {
  let o = order.get(p);
  if (o === undefined) order.set(p, (o = nextOrder++));
  return o;
}

/**
 * A frame's draws of one pass, in objects reused from frame to frame (a frame allocates none).
 * `extra`: props every draw of the list carries (the outline draws' marker and halo).
 */
export class RunList {
  private readonly pool: Run[] = [];
  readonly list: Run[] = [];

  constructor(private readonly extra: Record<string, unknown> = {}) {}

  clear(): void {
    this.list.length = 0;
  }

  /** A draw of `count` elements from `offset` of `page`, with the vertices of `vpage` (the same page when not indexed). */
  add(vpage: Arena, page: Arena, offset: number, count: number): void {
    if (count <= 0) return;
    let r = this.pool[this.list.length];
    if (!r) this.pool.push((r = { ...this.extra, buf: vpage.buf as Buffer, page, vpage, offset, count, seq: 0 } as Run));
    r.buf = vpage.buf as Buffer;
    r.idx = page === vpage ? undefined : (page.buf as Elements);
    r.page = page;
    r.vpage = vpage;
    r.offset = offset;
    r.count = count;
    r.seq = this.list.length;
    this.list.push(r);
  }

  /** The list with touching draws joined (see joinRuns). */
  joined(): Run[] {
    this.list.length = joinRuns(this.list);
    return this.list;
  }
}
