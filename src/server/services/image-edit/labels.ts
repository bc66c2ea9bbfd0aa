// Carrying a source image's stored annotations onto its edited copy.
// - Flips and 90/180/270 rotations map every coordinate exactly: points and boxes in continuous
//   image coordinates (a flip maps x to W - x), masks pixel for pixel (pixel column c maps to
//   W - 1 - c). Masks are transformed on their runs' bounding box only, so a small mask on a huge
//   image never costs a full-image bitmap.
// - Photometric edits keep the geometry; a generative edit whose output has another size gets its
//   labels scaled (nearest pixel for masks).
// Unknown keys (sam2_area, attributes...) are kept as they are.
import { countsToString, numericCounts, rleBBox } from '../../../contract/rle';
import type { GeoStep } from './vocabulary';

type Ann = Record<string, unknown>;
type Pt = [number, number];
interface Rle {
  size: [number, number];
  counts: number[] | string;
}

/** A change of frame: image size in and out, a continuous point map and the pixel map it implies. */
interface Frame {
  inW: number;
  inH: number;
  outW: number;
  outH: number;
  point(x: number, y: number): Pt;
  /** Source pixel for an output pixel (nearest), or null outside the source. */
  sourcePixel(nx: number, ny: number): Pt | null;
}

export function geoFrame(step: GeoStep, w: number, h: number): Frame {
  switch (step) {
    case 'flip_h':
      return { inW: w, inH: h, outW: w, outH: h, point: (x, y) => [w - x, y], sourcePixel: (nx, ny) => [w - 1 - nx, ny] };
    case 'flip_v':
      return { inW: w, inH: h, outW: w, outH: h, point: (x, y) => [x, h - y], sourcePixel: (nx, ny) => [nx, h - 1 - ny] };
    case 'rotate_180':
      return { inW: w, inH: h, outW: w, outH: h, point: (x, y) => [w - x, h - y], sourcePixel: (nx, ny) => [w - 1 - nx, h - 1 - ny] };
    case 'rotate_90': // clockwise: (x, y) -> (H - y, x)
      return { inW: w, inH: h, outW: h, outH: w, point: (x, y) => [h - y, x], sourcePixel: (nx, ny) => [ny, h - 1 - nx] };
    case 'rotate_270': // counter-clockwise: (x, y) -> (y, W - x)
      return { inW: w, inH: h, outW: h, outH: w, point: (x, y) => [y, w - x], sourcePixel: (nx, ny) => [w - 1 - ny, nx] };
  }
}

export function scaleFrame(w: number, h: number, outW: number, outH: number): Frame {
  const sx = outW / w;
  const sy = outH / h;
  return {
    inW: w,
    inH: h,
    outW,
    outH,
    point: (x, y) => [x * sx, y * sy],
    sourcePixel: (nx, ny) => {
      const x = Math.floor((nx + 0.5) / sx);
      const y = Math.floor((ny + 0.5) / sy);
      return x < w && y < h ? [x, y] : null;
    },
  };
}

/** Maps a mask given in the frame's input size; a mask of another size is scaled onto the frame first. */
export function mapRle(rle: Rle, frame: Frame): Rle {
  const [h, w] = rle.size;
  const asString = typeof rle.counts === 'string';
  const outH = frame.outH;
  const outW = frame.outW;
  const total = outH * outW;
  const bb = rleBBox({ size: [h, w], counts: rle.counts });
  const wrap = (counts: number[]): Rle => ({ size: [outH, outW], counts: asString ? countsToString(counts) : counts });
  if (bb.width === 0 || bb.height === 0) return wrap([total]);
  // A mask whose size is not the image's is first brought to the frame's input size by scaling.
  const toFrame = h === frame.inH && w === frame.inW ? null : scaleFrame(w, h, frame.inW, frame.inH);

  // The bounding box's pixels, column-major.
  const bw = bb.width;
  const bh = bb.height;
  const crop = new Uint8Array(bw * bh);
  const counts = numericCounts({ size: [h, w], counts: rle.counts });
  let pos = 0;
  for (let i = 0; i < counts.length; i++) {
    const c = counts[i]!;
    if (i % 2 === 1 && c > 0) {
      for (let p = pos; p < pos + c; ) {
        const col = Math.floor(p / h);
        const row = p - col * h;
        const end = Math.min(pos + c, (col + 1) * h);
        const from = (col - bb.x) * bh + (row - bb.y);
        crop.fill(1, from, from + (end - p));
        p = end;
      }
    }
    pos += c;
  }
  const sample = (x: number, y: number): number => {
    let sx = x;
    let sy = y;
    if (toFrame) {
      const s = toFrame.sourcePixel(x, y);
      if (!s) return 0;
      [sx, sy] = s;
    }
    const cx = sx - bb.x;
    const cy = sy - bb.y;
    return cx >= 0 && cy >= 0 && cx < bw && cy < bh ? crop[cx * bh + cy]! : 0;
  };

  // The output box: the frame's image of the source box (through the pre-scale when there is one).
  let rect = { x0: bb.x, y0: bb.y, x1: bb.x + bw, y1: bb.y + bh };
  if (toFrame) {
    const a = toFrame.point(rect.x0, rect.y0);
    const b = toFrame.point(rect.x1, rect.y1);
    rect = { x0: Math.floor(a[0]), y0: Math.floor(a[1]), x1: Math.ceil(b[0]), y1: Math.ceil(b[1]) };
  }
  const p0 = frame.point(rect.x0, rect.y0);
  const p1 = frame.point(rect.x1, rect.y1);
  const nx0 = Math.max(0, Math.floor(Math.min(p0[0], p1[0])) - 1);
  const ny0 = Math.max(0, Math.floor(Math.min(p0[1], p1[1])) - 1);
  const nx1 = Math.min(outW, Math.ceil(Math.max(p0[0], p1[0])) + 1);
  const ny1 = Math.min(outH, Math.ceil(Math.max(p0[1], p1[1])) + 1);

  const out: number[] = [];
  let start = 0;
  let cur = 0;
  const fullColumn = ny0 === 0 && ny1 === outH;
  for (let nx = nx0; nx < nx1; nx++) {
    const base = nx * outH;
    for (let ny = ny0; ny < ny1; ny++) {
      const s = frame.sourcePixel(nx, ny);
      const v = s && s[0] >= 0 && s[1] >= 0 && s[0] < frame.inW && s[1] < frame.inH ? sample(s[0], s[1]) : 0;
      if (v !== cur) {
        out.push(base + ny - start);
        start = base + ny;
        cur = v;
      }
    }
    if (cur === 1 && !fullColumn) {
      out.push(base + ny1 - start);
      start = base + ny1;
      cur = 0;
    }
  }
  if (cur === 1) {
    const end = (nx1 - 1) * outH + ny1;
    out.push(end - start);
    start = end;
  }
  if (out.length === 0 || total - start > 0) out.push(total - start);
  return wrap(out);
}

function mapPoints(path: unknown, frame: Frame): Pt[] | unknown {
  if (!Array.isArray(path)) return path;
  return path.map((p) => (Array.isArray(p) && p.length >= 2 ? frame.point(Number(p[0]), Number(p[1])) : p));
}

function mapBox(box: unknown, frame: Frame): unknown {
  if (!box || typeof box !== 'object') return box;
  const b = box as { x: number; y: number; w: number; h: number };
  const [ax, ay] = frame.point(b.x, b.y);
  const [bx, by] = frame.point(b.x + b.w, b.y + b.h);
  return { ...b, x: Math.min(ax, bx), y: Math.min(ay, by), w: Math.abs(bx - ax), h: Math.abs(by - ay) };
}

/** One annotation through one frame. */
export function mapAnnotation(a: Ann, frame: Frame): Ann {
  const out: Ann = { ...a, bounding_box: mapBox(a.bounding_box, frame) };
  if (a.polygon && typeof a.polygon === 'object') {
    const p = a.polygon as { path: unknown; holes?: unknown };
    out.polygon = { ...p, path: mapPoints(p.path, frame), ...(Array.isArray(p.holes) ? { holes: p.holes.map((hole) => mapPoints(hole, frame)) } : {}) };
  }
  if (a.polyline && typeof a.polyline === 'object') {
    const p = a.polyline as { path: unknown };
    out.polyline = { ...p, path: mapPoints(p.path, frame) };
  }
  if (a.keypoint && typeof a.keypoint === 'object') {
    const k = a.keypoint as { x: number; y: number };
    const [x, y] = frame.point(k.x, k.y);
    out.keypoint = { ...k, x, y };
  }
  if (a.segmentation && typeof a.segmentation === 'object') {
    out.segmentation = mapRle(a.segmentation as Rle, frame);
  }
  return out;
}

/** The annotations of a w x h image after the geometric steps, in order. */
export function transformAnnotations(annotations: readonly Ann[], steps: readonly GeoStep[], w: number, h: number): Ann[] {
  let list = annotations.map((a) => ({ ...a }));
  let cw = w;
  let ch = h;
  for (const step of steps) {
    const frame = geoFrame(step, cw, ch);
    list = list.map((a) => mapAnnotation(a, frame));
    cw = frame.outW;
    ch = frame.outH;
  }
  return list;
}

/** The annotations of a w x h image on a copy of outW x outH (unchanged when the size is the same). */
export function scaleAnnotations(annotations: readonly Ann[], w: number, h: number, outW: number, outH: number): Ann[] {
  if (w === outW && h === outH) return annotations.map((a) => ({ ...a }));
  const frame = scaleFrame(w, h, outW, outH);
  return annotations.map((a) => mapAnnotation(a, frame));
}
