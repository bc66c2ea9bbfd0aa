// Mask textures packed into a few shared LUMINANCE atlases (shelf packing), so every mask of a
// scene draws in one call per atlas instead of one call per mask (500 masks: 500 draws with
// their uniform and texture binds were most of a frame in software WebGL).
//
// A mask occupies a (rect height) x (rect width) texel block: the RLE decode is column-major,
// so the block is the crop transposed (texel (u, v) = (row y, column x)), uploaded as it is.
// Blocks keep a 1 texel gap of zeros, which the shader discards, so nearest sampling at a quad's
// edge never reads a neighbour. A removed mask's block goes on its atlas's free list and takes
// the next mask that fits in it (an edited mask comes back at about its old size); an atlas that
// holds no mask at all is cleared and starts over.
import type { Regl, Texture2D } from 'regl';

export interface Atlas {
  tex: Texture2D;
  w: number;
  h: number;
  /** Shelves: top y, height, next free x. */
  shelves: { y: number; h: number; x: number }[];
  top: number;
  live: number;
  /** Blocks of removed masks (u, v, tw, th), reusable by a mask no larger. */
  free: Block[];
  /** One mask larger than the shared size: freed with it. */
  dedicated: boolean;
}

/** A texel block of an atlas: corner (u, v), tw texels along u (rect height), th along v. */
interface Block {
  u: number;
  v: number;
  tw: number;
  th: number;
}

export interface MaskPlace extends Block {
  atlas: Atlas;
  /** The block it was given, which may be larger than the mask (a reused block): freed whole. */
  block: Block;
  /** Set once removed (removing twice is a no-op). */
  gone?: boolean;
}

const GAP = 1;

export class MaskAtlases {
  readonly atlases: Atlas[] = [];
  /**
   * `size`: the side of a shared atlas; `maxSide`: the GPU's texture limit. A mask whose crop is
   * larger (a big object on a 20k px image) is kept at every k-th texel to fit, not dropped.
   */
  constructor(private readonly regl: Regl, private readonly size: number, private readonly maxSide = Infinity) {}

  private create(w: number, h: number, dedicated: boolean): Atlas {
    const tex = this.regl.texture({ width: w, height: h, format: 'luminance', type: 'uint8', alignment: 1, min: 'nearest', mag: 'nearest', wrapS: 'clamp', wrapT: 'clamp' });
    const a: Atlas = { tex, w, h, shelves: [], top: 0, live: 0, free: [], dedicated };
    this.atlases.push(a);
    return a;
  }

  private fit(a: Atlas, tw: number, th: number): Block | null {
    // The smallest freed block that holds it (its gap to the neighbours is already there).
    let best = -1;
    for (let i = 0; i < a.free.length; i++) {
      const f = a.free[i]!;
      if (f.tw >= tw && f.th >= th && (best < 0 || f.tw * f.th < a.free[best]!.tw * a.free[best]!.th)) best = i;
    }
    if (best >= 0) return a.free.splice(best, 1)[0]!;
    const bw = tw + GAP, bh = th + GAP;
    for (const s of a.shelves) {
      if (bh <= s.h && s.x + bw <= a.w) {
        const at = { u: s.x, v: s.y, tw, th };
        s.x += bw;
        return at;
      }
    }
    if (a.top + bh <= a.h && bw <= a.w) {
      const s = { y: a.top, h: bh, x: bw };
      a.shelves.push(s);
      a.top += bh;
      return { u: 0, v: s.y, tw, th };
    }
    return null;
  }

  /** Places and uploads one decoded crop (column-major: `th` columns of `tw` bytes). */
  add(tw: number, th: number, data: Uint8Array): MaskPlace {
    tw = Math.max(1, tw);
    th = Math.max(1, th);
    if (tw > this.maxSide || th > this.maxSide) ({ tw, th, data } = subsample(tw, th, data, Math.ceil(Math.max(tw, th) / this.maxSide)));
    let atlas: Atlas | null = null, at: Block | null = null;
    if (tw + GAP > this.size || th + GAP > this.size) {
      atlas = this.create(tw, th, true);
      at = { u: 0, v: 0, tw, th };
    } else {
      for (const a of this.atlases) {
        if (a.dedicated) continue;
        at = this.fit(a, tw, th);
        if (at) {
          atlas = a;
          break;
        }
      }
      if (!atlas) {
        atlas = this.create(this.size, this.size, false);
        at = this.fit(atlas, tw, th)!;
      }
    }
    const { u, v } = at!;
    const upload = (bytes: Uint8Array, width: number, height: number, x: number, y: number) =>
      atlas.tex.subimage({ data: bytes, width, height, format: 'luminance', type: 'uint8', alignment: 1 }, x, y);
    upload(data, tw, th, u, v);
    // A reused block larger than the mask: zero the texels just past it, which nearest sampling
    // at the quad's edge may read (they hold the block's previous mask).
    if (at!.tw > tw) upload(new Uint8Array(th), 1, th, u + tw, v);
    if (at!.th > th) upload(new Uint8Array(Math.min(tw + 1, at!.tw)), Math.min(tw + 1, at!.tw), 1, u, v + th);
    atlas.live++;
    return { atlas, u, v, tw, th, block: at! };
  }

  /**
   * Uploads `rows` texel rows of a placed mask from row `first` (a crop of image columns
   * [rect x + first, + rows), each of `p.tw` bytes: the columns an edit changed).
   */
  update(p: MaskPlace, first: number, rows: number, data: Uint8Array): void {
    if (p.gone || first < 0 || first + rows > p.th || data.length !== rows * p.tw) throw new Error('Mask update outside its block');
    p.atlas.tex.subimage({ data, width: p.tw, height: rows, format: 'luminance', type: 'uint8', alignment: 1 }, p.u, p.v + first);
  }

  remove(p: MaskPlace): void {
    if (p.gone) return;
    p.gone = true;
    const a = p.atlas;
    if (--a.live > 0) {
      a.free.push(p.block);
      return;
    }
    const i = this.atlases.indexOf(a);
    if (a.dedicated || this.atlases.filter((x) => !x.dedicated).length > 1) {
      a.tex.destroy();
      if (i >= 0) this.atlases.splice(i, 1);
      return;
    }
    // the last shared atlas, now empty: cleared and kept
    a.tex({ width: a.w, height: a.h, format: 'luminance', type: 'uint8', alignment: 1, min: 'nearest', mag: 'nearest', wrapS: 'clamp', wrapT: 'clamp' });
    a.shelves = [];
    a.free = [];
    a.top = 0;
  }

  bytes(): number {
    let n = 0;
    for (const a of this.atlases) n += a.w * a.h;
    return n;
  }

  dispose(): void {
    for (const a of this.atlases) a.tex.destroy();
    this.atlases.length = 0;
  }
}

/** Every k-th texel of a column-major crop (`th` columns of `tw` bytes), nearest, as a smaller crop. */
export function subsample(tw: number, th: number, data: Uint8Array, k: number): { tw: number; th: number; data: Uint8Array } {
  const tw2 = Math.ceil(tw / k), th2 = Math.ceil(th / k);
  const out = new Uint8Array(tw2 * th2);
  for (let c = 0; c < th2; c++) {
    const from = c * k * tw, to = c * tw2;
    for (let r = 0; r < tw2; r++) out[to + r] = data[from + r * k]!;
  }
  return { tw: tw2, th: th2, data: out };
}
