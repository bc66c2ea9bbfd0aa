// The built-in editor's pixel steps: colour and weather effects as plain loops over the raw
// buffer, with no sharp and no I/O, so they run on an offload thread (src/server/offload, task
// imageEditPixels): a 12 MP image is tens of millions of bytes per step, which would hold the event
// loop. Random effects (noise, rain, snow) draw from a PRNG seeded by the job's seed and the step's
// position (stepSeed), so the same seed gives the same bytes wherever they run.
import type { EditStep, GeoStep } from './vocabulary';

/** Decoded pixels, interleaved, row-major. */
export interface Raw {
  data: Uint8Array;
  width: number;
  height: number;
  channels: number;
}

/** mulberry32: small, fast, and the same sequence for the same seed on every platform. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussian(rand: () => number): () => number {
  let spare: number | null = null;
  return () => {
    if (spare !== null) {
      const s = spare;
      spare = null;
      return s;
    }
    const u = Math.max(rand(), 1e-12);
    const v = rand();
    const r = Math.sqrt(-2 * Math.log(u));
    spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  };
}

const clamp = (v: number) => (v < 0 ? 0 : v > 255 ? 255 : v);

/** A colour transform: r' = m[0] r + m[1] g + m[2] b + m[3], and so on for g' (m[4..7]) and b' (m[8..11]). */
type Affine = readonly number[];
const LUMA = [0.2126, 0.7152, 0.0722] as const;

/** Saturation s (0: grey, 1: unchanged), then per-channel scale k and offset o. */
function tone(s: number, k: readonly [number, number, number] = [1, 1, 1], o: readonly [number, number, number] = [0, 0, 0]): Affine {
  const m: number[] = [];
  for (let row = 0; row < 3; row++) {
    for (let col = 0; col < 3; col++) m.push(k[row]! * ((row === col ? s : 0) + (1 - s) * LUMA[col]!));
    m.push(o[row]!);
  }
  return m;
}

/**
 * Applies a colour transform to every pixel (alpha untouched); `perRow` gives one per row for
 * effects that vary from top to bottom. A tight loop over a clamped view: no call per pixel.
 */
function affine(img: Raw, m: Affine | ((y: number) => Affine)): void {
  const { width, height, channels } = img;
  const d = new Uint8ClampedArray(img.data.buffer, img.data.byteOffset, img.data.length);
  let t = typeof m === 'function' ? null : m;
  for (let y = 0; y < height; y++) {
    if (typeof m === 'function') t = m(y);
    const [a0, a1, a2, a3, b0, b1, b2, b3, c0, c1, c2, c3] = t as number[];
    for (let i = y * width * channels, end = i + width * channels; i < end; i += channels) {
      const r = d[i]!;
      const g = d[i + 1]!;
      const b = d[i + 2]!;
      d[i] = a0! * r + a1! * g + a2! * b + a3!;
      d[i + 1] = b0! * r + b1! * g + b2! * b + b3!;
      d[i + 2] = c0! * r + c1! * g + c2! * b + c3!;
    }
  }
}

/** Blends a colour into one pixel with opacity a (0..1). */
function blend(img: Raw, x: number, y: number, rgb: readonly [number, number, number], a: number): void {
  if (x < 0 || y < 0 || x >= img.width || y >= img.height) return;
  const i = (y * img.width + x) * img.channels;
  const d = img.data;
  d[i] = clamp(Math.round(d[i]! * (1 - a) + rgb[0] * a));
  d[i + 1] = clamp(Math.round(d[i + 1]! * (1 - a) + rgb[1] * a));
  d[i + 2] = clamp(Math.round(d[i + 2]! * (1 - a) + rgb[2] * a));
}

/** Gaussian noise: a table of 64k normal samples drawn from the seeded PRNG, indexed by a fast xorshift seeded from it too. */
function addNoise(img: Raw, rand: () => number, sigma: number, mono: boolean): void {
  const g = gaussian(rand);
  const table = new Float32Array(65536);
  for (let i = 0; i < table.length; i++) table[i] = sigma * g();
  let x = (Math.floor(rand() * 0xffffffff) | 1) >>> 0;
  const next = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return table[x & 0xffff]!;
  };
  const d = new Uint8ClampedArray(img.data.buffer, img.data.byteOffset, img.data.length);
  const c = img.channels;
  for (let i = 0; i < d.length; i += c) {
    const n = next();
    d[i] = d[i]! + n;
    d[i + 1] = d[i + 1]! + (mono ? n : next());
    d[i + 2] = d[i + 2]! + (mono ? n : next());
  }
}

function rainStreaks(img: Raw, rand: () => number): void {
  const { width: w, height: h } = img;
  const count = Math.max(20, Math.round((w * h) / 900));
  const minDim = Math.min(w, h);
  const thickness = Math.max(1, Math.round(minDim / 700));
  for (let k = 0; k < count; k++) {
    const x0 = rand() * (w + h * 0.25) - h * 0.25;
    const y0 = rand() * h;
    const len = (0.03 + rand() * 0.05) * minDim;
    const a = 0.18 + rand() * 0.22;
    for (let t = 0; t < len; t++) {
      const y = Math.round(y0 + t);
      const x = Math.round(x0 + t * 0.25);
      for (let d = 0; d < thickness; d++) blend(img, x + d, y, [205, 210, 220], a);
    }
  }
}

function snowFlakes(img: Raw, rand: () => number): void {
  const { width: w, height: h } = img;
  const count = Math.max(20, Math.round((w * h) / 700));
  const maxR = Math.max(1.2, Math.min(w, h) / 260);
  for (let k = 0; k < count; k++) {
    const cx = rand() * w;
    const cy = rand() * h;
    const r = 0.6 + rand() * maxR;
    const a = 0.55 + rand() * 0.4;
    const r2 = r * r;
    for (let y = Math.floor(cy - r); y <= Math.ceil(cy + r); y++) {
      for (let x = Math.floor(cx - r); x <= Math.ceil(cx + r); x++) {
        const d2 = (x + 0.5 - cx) ** 2 + (y + 0.5 - cy) ** 2;
        if (d2 <= r2) blend(img, x, y, [250, 250, 255], a * (1 - (0.5 * d2) / r2));
      }
    }
  }
}


/** The steps that go through sharp alone (geometry, blur, sharpen): no pixel loop here. */
export type SharpOnlyStep = GeoStep | 'blur' | 'sharpen';
export type PixelStep = Exclude<EditStep, SharpOnlyStep>;

export function isPixelStep(step: EditStep): step is PixelStep {
  return !['flip_h', 'flip_v', 'rotate_90', 'rotate_180', 'rotate_270', 'blur', 'sharpen'].includes(step);
}

/** Seeds one PRNG per step from the job seed and the step's position. */
export function stepSeed(seed: number, index: number): number {
  return (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) + Math.imul(index + 1, 0xc2b2ae35)) >>> 0;
}

/** The pixel loop of a step, in place (fog's blur follows on sharp, in builtin.ts). `seed` is the step's (stepSeed). */
export function applyPixelStep(img: Raw, step: PixelStep, seed: number): Raw {
  const rand = prng(seed);
  switch (step) {
    case 'brighter':
      affine(img, tone(1, [1.25, 1.25, 1.25], [8, 8, 8]));
      break;
    case 'darker':
      affine(img, tone(1, [0.7, 0.7, 0.7]));
      break;
    case 'more_contrast':
      affine(img, tone(1, [1.4, 1.4, 1.4], [-0.4 * 128, -0.4 * 128, -0.4 * 128]));
      break;
    case 'less_contrast':
      affine(img, tone(1, [0.65, 0.65, 0.65], [0.35 * 128, 0.35 * 128, 0.35 * 128]));
      break;
    case 'grayscale':
      affine(img, tone(0));
      break;
    case 'sepia':
      affine(img, [0.393, 0.769, 0.189, 0, 0.349, 0.686, 0.168, 0, 0.272, 0.534, 0.131, 0]);
      break;
    case 'noise':
      addNoise(img, rand, 18, false);
      break;
    case 'night':
      // Darker, bluer, less saturated. (No grain: it would triple the encoding time for little gain.)
      affine(img, tone(0.55, [0.32, 0.4, 0.62], [0, 2, 14]));
      break;
    case 'fog': {
      // Thicker towards the top (the distance, in most photos); softened afterwards.
      const h = Math.max(1, img.height - 1);
      const base = tone(0.6);
      affine(img, (y) => {
        const f = 0.35 + 0.3 * (1 - y / h);
        const fog = [215 * f, 218 * f, 222 * f];
        return base.map((v, i) => (i % 4 === 3 ? fog[(i - 3) / 4]! : v * (1 - f)));
      });
      break;
    }
    case 'rain':
      affine(img, tone(0.7, [0.8, 0.82, 0.88], [0, 0, 6]));
      rainStreaks(img, rand);
      break;
    case 'snow':
      affine(img, tone(0.6, [0.9, 0.9, 0.9], [25, 28, 36]));
      snowFlakes(img, rand);
      break;
    case 'sunset': {
      const h = Math.max(1, img.height - 1);
      affine(img, (y) => {
        const t = 1 - y / h; // warmer sky at the top
        return tone(1, [1.1, 0.95, 0.75], [20 + 12 * t, 4 * t, -6]);
      });
      break;
    }
  }
  return img;
}
