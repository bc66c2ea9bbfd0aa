// Zoom-in for small objects (after FocalClick and RITM's zoom-in): superpixels are sized for the
// whole image, so on an object of a few thousand pixels each click flips a twentieth of it and the
// mask oscillates. Once there is a mask or a box to go by, and the object is small next to the image, the
// cut runs again on a crop around it, resampled so the crop has about FOCUS_PIXELS pixels (up to
// MAX_ZOOM times enlarged): the same algorithm then sees the object at the scale it was tuned at.
// The crop's structure is kept on the embedding while later clicks stay inside it.
import { buildStructure, type SegmentOps, type Structure } from './algorithm';

/** Target pixel count of a focus crop (the tuning size is 640x480; smaller keeps a click fast). */
export const FOCUS_PIXELS = 360 * 360;
/** A crop is enlarged at most this much. */
const MAX_ZOOM = 4;
/** Margin added on each side of the object's box, as a share of its size. */
const MARGIN = 0.4;
/** Zoom only when the focus box's long side is under this share of the image's. */
const MAX_SHARE = 0.5;

/** A region of the source image (pixels) and the crop built from it. */
export interface Focus {
  /** the region, in source pixels: [x0, y0, x1, y1) */
  rect: [number, number, number, number];
  /** crop pixels per source pixel */
  scale: number;
  st: Structure;
}

/** A bounding box [x0, y0, x1, y1) in source pixels, or null. */
export type Rect = [number, number, number, number];

/** The region to zoom on (the box around `rect` plus its margin, clipped), or null when it is not small next to the image. */
export function focusRegion(rect: Rect, sw: number, sh: number): Rect | null {
  const bw = rect[2] - rect[0], bh = rect[3] - rect[1];
  const side = Math.max(bw, bh, 16);
  const gx = Math.max(MARGIN * bw, 0.2 * side), gy = Math.max(MARGIN * bh, 0.2 * side);
  const out: Rect = [Math.max(0, Math.floor(rect[0] - gx)), Math.max(0, Math.floor(rect[1] - gy)), Math.min(sw, Math.ceil(rect[2] + gx)), Math.min(sh, Math.ceil(rect[3] + gy))];
  if (Math.max(out[2] - out[0], out[3] - out[1]) > MAX_SHARE * Math.max(sw, sh)) return null;
  return out;
}

/** The cached crop when it still covers `region` without being much larger, else a new one. */
export function focusFor(ops: SegmentOps, cached: Focus | undefined, region: Rect, src: Uint8Array, sw: number): Focus {
  if (cached) {
    const [x0, y0, x1, y1] = cached.rect;
    const inside = region[0] >= x0 && region[1] >= y0 && region[2] <= x1 && region[3] <= y1;
    const area = (region[2] - region[0]) * (region[3] - region[1]);
    if (inside && (x1 - x0) * (y1 - y0) <= 2.5 * area) return cached;
  }
  const rw = region[2] - region[0], rh = region[3] - region[1];
  const scale = Math.min(MAX_ZOOM, Math.sqrt(FOCUS_PIXELS / (rw * rh)));
  const cw = Math.max(8, Math.round(rw * scale)), ch = Math.max(8, Math.round(rh * scale));
  const crop = resampleRgb(src, sw, region, cw, ch);
  return { rect: region, scale: cw / rw, st: buildStructure(ops, crop, cw, ch, 3) };
}

/** Bilinear resample of `rect` of an RGB image (width sw) to cw x ch. */
export function resampleRgb(src: Uint8Array, sw: number, rect: Rect, cw: number, ch: number): Uint8Array {
  const out = new Uint8Array(cw * ch * 3);
  const sx = (rect[2] - rect[0]) / cw, sy = (rect[3] - rect[1]) / ch;
  const maxX = rect[2] - 1, maxY = rect[3] - 1;
  for (let y = 0; y < ch; y++) {
    const fy = Math.min(maxY, Math.max(rect[1], rect[1] + (y + 0.5) * sy - 0.5));
    const y0 = Math.floor(fy), y1 = Math.min(maxY, y0 + 1), ty = fy - y0;
    for (let x = 0; x < cw; x++) {
      const fx = Math.min(maxX, Math.max(rect[0], rect[0] + (x + 0.5) * sx - 0.5));
      const x0 = Math.floor(fx), x1 = Math.min(maxX, x0 + 1), tx = fx - x0;
      const a = (y0 * sw + x0) * 3, b = (y0 * sw + x1) * 3, c = (y1 * sw + x0) * 3, d = (y1 * sw + x1) * 3;
      const o = (y * cw + x) * 3;
      for (let k = 0; k < 3; k++) {
        const top = src[a + k]! + (src[b + k]! - src[a + k]!) * tx;
        const bottom = src[c + k]! + (src[d + k]! - src[c + k]!) * tx;
        out[o + k] = Math.round(top + (bottom - top) * ty);
      }
    }
  }
  return out;
}

/**
 * Nearest-neighbour copy between two grids over the same region: `from` (fw x fh, covering
 * fromRect in some common unit) sampled at each cell of `to` (tw x th, covering toRect). Cells of
 * `to` outside fromRect get 0.
 */
export function sampleMask(from: Uint8Array, fw: number, fh: number, fromRect: Rect, to: Uint8Array, tw: number, th: number, toRect: Rect): void {
  const fsx = fw / (fromRect[2] - fromRect[0]), fsy = fh / (fromRect[3] - fromRect[1]);
  const tsx = (toRect[2] - toRect[0]) / tw, tsy = (toRect[3] - toRect[1]) / th;
  // Each column's source column once; the columns that fall on `from` are one range, as the rows are.
  const fxs = new Int32Array(tw);
  let xa = tw, xb = 0;
  for (let x = 0; x < tw; x++) {
    const fx = Math.floor((toRect[0] + (x + 0.5) * tsx - fromRect[0]) * fsx);
    fxs[x] = fx;
    if (fx >= 0 && fx < fw) {
      xa = Math.min(xa, x);
      xb = x + 1;
    }
  }
  for (let y = 0; y < th; y++) {
    const fy = Math.floor((toRect[1] + (y + 0.5) * tsy - fromRect[1]) * fsy), row = y * tw;
    if (fy < 0 || fy >= fh || xa >= xb) {
      to.fill(0, row, row + tw);
      continue;
    }
    to.fill(0, row, row + xa);
    for (let x = xa, frow = fy * fw; x < xb; x++) to[row + x] = from[frow + fxs[x]!]!;
    to.fill(0, row + xb, row + tw);
  }
}

/** Superpixel flags from a pixel mask: a superpixel is foreground when most of its pixels are. */
export function superpixelFlags(st: Structure, mask: Uint8Array): Uint8Array {
  const n = st.stats.count;
  const on = new Float64Array(n);
  for (let q = 0; q < mask.length; q++) if (mask[q]) on[st.labels[q]!]++;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = on[i]! * 2 > st.stats.size[i]! ? 1 : 0;
  return out;
}
