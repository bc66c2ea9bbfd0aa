// Mask quality on real photographs (../shared/datasets/seg-dev: 160 COCO photographs with object
// masks), the built-in segmenter next to OpenCV's GrabCut with the same prompts, in the same run.
//
// The standard protocol of interactive segmentation papers (tests/fixtures/segmentation.ts): the
// first click positive at the object's interior-most pixel, each next one at the interior-most
// pixel of the deeper error region, at most 20; a session stops at IoU 0.90, as an annotator would.
// With `box`, the first prompt is the object's bounding box grown by 5% (2.5% each side), then the
// same clicks. The built-in segmenter runs the server's code (decode, embed, predict with the
// previous mask from the second click on, as the editor asks); GrabCut (@techstark/opencv-js,
// 3 iterations per click) gets the clicks as hard labels (5 px disks), probable foreground within
// 15% of the image size of a positive click and probable background elsewhere, or with a box the
// box as its rectangle and the clicks on its previous mask.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { firstClick, iou, nextClick } from '../../tests/fixtures/segmentation';
import { kernelsWasmPath } from '../../src/kernels/node';
import { instantiateSegmentKernelsSync } from '../../src/kernels/segment';
import { BuiltinSegmenter } from '../../src/server/services/segmentation/builtin';
import { decodeImage } from '../../src/server/services/segmentation/image';
import { foregroundBox } from '../../src/server/services/segmentation/maskBox';
import type { Prediction } from '../../src/server/services/segmentation/types';

const here = path.dirname(fileURLToPath(import.meta.url));
export const SEG_DEV_DIR = process.env.SEG_DEV_DIR ?? path.resolve(here, '../../../shared/datasets/seg-dev');

const MAX_CLICKS = 20;
/** A click lowering IoU by more than this is counted as harmful. */
const HARMFUL_DROP = 0.02;

type Point = [number, number];
/** [x, y, w, h] in pixels */
type Box = [number, number, number, number];
interface Prompt {
  positive: Point[];
  negative: Point[];
  box?: Box;
}
interface Sample {
  name: string;
  bytes: Buffer;
  width: number;
  height: number;
  rgb: Uint8Array;
  truth: Uint8Array;
}
interface Session {
  predict(p: Prompt): Promise<Uint8Array>;
  dispose(): void;
}
interface Method {
  name: string;
  box: boolean;
  open(s: Sample): Promise<{ session: Session; embedMs: number }>;
}

export interface QualityRow {
  method: string;
  prompt: 'clicks' | 'box + clicks' | 'box alone';
  images: number;
  /** mean IoU after the first prompt (a click, or the box) */
  iou_1: number;
  noc85: number;
  noc90: number;
  /** images never reaching 90% in 20 clicks */
  failures90: number;
  /** share of clicks after the first that lowered IoU by more than 0.02 */
  harmful_click_share: number;
  ms_per_click: { p50: number; mean: number };
  embed_ms?: number;
  load_average: [number, number];
  per_image: { name: string; ious: number[] }[];
}

const round = (v: number, d = 3) => Math.round(v * 10 ** d) / 10 ** d;
function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? 0;
}

/** The photographs and their masks, every `step`-th of the sorted list (all by default). */
export async function loadSegDev(opts: { limit?: number } = {}): Promise<Sample[] | null> {
  const dir = path.join(SEG_DEV_DIR, 'images');
  if (!fs.existsSync(dir)) return null;
  let names = fs.readdirSync(dir).filter((n) => n.endsWith('.jpg')).sort();
  if (opts.limit && opts.limit < names.length) {
    const step = names.length / opts.limit;
    names = Array.from({ length: opts.limit }, (_, i) => names[Math.floor(i * step)]!);
  }
  const out: Sample[] = [];
  for (const name of names) {
    const bytes = fs.readFileSync(path.join(dir, name));
    const img = await sharp(bytes).autoOrient().removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
    const m = await sharp(path.join(SEG_DEV_DIR, 'masks', name.replace(/\.jpg$/, '.png'))).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
    if (m.info.width !== img.info.width || m.info.height !== img.info.height) throw new Error(`${name}: mask ${m.info.width}x${m.info.height} does not match the image ${img.info.width}x${img.info.height}`);
    const truth = new Uint8Array(m.data.length);
    for (let i = 0; i < truth.length; i++) truth[i] = m.data[i]! >= 128 ? 1 : 0;
    out.push({ name, bytes, width: img.info.width, height: img.info.height, rgb: new Uint8Array(img.data), truth });
  }
  return out;
}

/** The object's bounding box grown by 5% of its size (2.5% each side), clipped to the image. */
export function promptBox(truth: Uint8Array, w: number, h: number): Box {
  const { x0, x1, y0, y1 } = foregroundBox(truth, w, h)!;
  const bw = x1 - x0 + 1, bh = y1 - y0 + 1;
  const gx = 0.025 * bw, gy = 0.025 * bh;
  const nx0 = Math.max(0, x0 - gx), ny0 = Math.max(0, y0 - gy);
  return [nx0, ny0, Math.min(w, x1 + 1 + gx) - nx0, Math.min(h, y1 + 1 + gy) - ny0];
}

/** A prediction as a full-size 0/1 mask (the refined crop when there is one, else the grid scaled by nearest neighbour, as result.ts maps it). */
function fullMask(p: Prediction, width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height);
  if (p.fine) {
    const f = p.fine;
    for (let y = 0; y < f.h; y++) out.set(f.data.subarray(y * f.w, (y + 1) * f.w), (f.y0 + y) * width + f.x0);
    return out;
  }
  const { data, gw, gh } = p.mask;
  for (let y = 0; y < height; y++) {
    const gy = Math.min(gh - 1, Math.floor((y * gh) / height));
    for (let x = 0; x < width; x++) out[y * width + x] = data[gy * gw + Math.min(gw - 1, Math.floor((x * gw) / width))]!;
  }
  return out;
}

function builtin(seg: BuiltinSegmenter, box: boolean): Method {
  return {
    name: 'Vellum built-in',
    box,
    async open(s) {
      await seg.warmup();
      const image = await decodeImage(s.bytes, seg.maxSide, seg.wantsFullRes);
      const t = performance.now();
      const e = await seg.embed(image);
      const embedMs = performance.now() - t;
      let previous: unknown;
      return {
        embedMs,
        session: {
          async predict(p) {
            const pred = await seg.predict(e, { positive: p.positive, negative: p.negative, ...(p.box ? { box: p.box } : {}) }, previous);
            previous = pred.state;
            return fullMask(pred, s.width, s.height);
          },
          dispose() {},
        },
      };
    },
  };
}

interface Cv {
  Mat: new () => CvMat;
  Rect: new (x: number, y: number, w: number, h: number) => CvRect;
  matFromArray(rows: number, cols: number, type: number, data: ArrayLike<number>): CvMat;
  grabCut(img: CvMat, mask: CvMat, rect: CvRect, bgd: CvMat, fgd: CvMat, iters: number, mode: number): void;
  CV_8UC1: number;
  CV_8UC3: number;
  GC_BGD: number;
  GC_FGD: number;
  GC_PR_BGD: number;
  GC_PR_FGD: number;
  GC_INIT_WITH_MASK: number;
  GC_INIT_WITH_RECT: number;
}
interface CvRect {
  x: number;
  y: number;
  width: number;
  height: number;
}
interface CvMat {
  data: Uint8Array;
  delete(): void;
}

/** OpenCV, wrapped: the Emscripten module is a thenable, so a promise resolved with it (or an async function returning it) never settles. */
export async function loadOpenCv(): Promise<{ cv: Cv }> {
  const require = createRequire(import.meta.url);
  const cv = require('@techstark/opencv-js') as Cv & { onRuntimeInitialized?: () => void };
  if (!(cv as { Mat?: unknown }).Mat) await new Promise<void>((resolve) => (cv.onRuntimeInitialized = () => resolve()));
  return { cv };
}

function grabCut(cv: Cv, box: boolean): Method {
  return {
    name: 'OpenCV GrabCut',
    box,
    async open(s) {
      const { width: w, height: h } = s;
      const img = cv.matFromArray(h, w, cv.CV_8UC3, s.rgb);
      let last: Uint8Array | null = null; // GrabCut's own label mask after the previous prompt (box mode)
      const disk = (m: Uint8Array, cx: number, cy: number, rad: number, v: number) => {
        for (let y = Math.max(0, Math.floor(cy - rad)); y <= Math.min(h - 1, cy + rad); y++) {
          for (let x = Math.max(0, Math.floor(cx - rad)); x <= Math.min(w - 1, cx + rad); x++) if ((x - cx) ** 2 + (y - cy) ** 2 <= rad * rad) m[y * w + x] = v;
        }
      };
      const run = (init: Uint8Array, rect: Box | null) => {
        const mask = cv.matFromArray(h, w, cv.CV_8UC1, init);
        const bgd = new cv.Mat(), fgd = new cv.Mat();
        try {
          const r = rect ? new cv.Rect(Math.round(rect[0]), Math.round(rect[1]), Math.max(1, Math.round(rect[2])), Math.max(1, Math.round(rect[3]))) : new cv.Rect(0, 0, w, h);
          try {
            cv.grabCut(img, mask, r, bgd, fgd, 3, rect ? cv.GC_INIT_WITH_RECT : cv.GC_INIT_WITH_MASK);
            last = new Uint8Array(mask.data);
          } catch (err) {
            // OpenCV refuses a rectangle that leaves no background sample (a box over the whole
            // image): GrabCut's own starting labels, the box as probable foreground, are its answer.
            if (!rect) throw err;
            last = new Uint8Array(w * h).fill(cv.GC_BGD);
            for (let y = r.y; y < Math.min(h, r.y + r.height); y++) last.fill(cv.GC_PR_FGD, y * w + r.x, y * w + Math.min(w, r.x + r.width));
          }
        } finally {
          mask.delete();
          bgd.delete();
          fgd.delete();
        }
        const out = new Uint8Array(w * h);
        for (let i = 0; i < out.length; i++) out[i] = last[i] === cv.GC_FGD || last[i] === cv.GC_PR_FGD ? 1 : 0;
        return out;
      };
      return {
        embedMs: 0,
        session: {
          async predict(p) {
            if (p.box && p.positive.length + p.negative.length === 0) return run(new Uint8Array(w * h), p.box);
            let init: Uint8Array;
            if (p.box && last) init = new Uint8Array(last);
            else {
              init = new Uint8Array(w * h).fill(cv.GC_PR_BGD);
              for (const [x, y] of p.positive) disk(init, x, y, 0.15 * Math.sqrt(w * h), cv.GC_PR_FGD);
            }
            for (const [x, y] of p.positive) disk(init, x, y, 5, cv.GC_FGD);
            for (const [x, y] of p.negative) disk(init, x, y, 5, cv.GC_BGD);
            return run(init, null);
          },
          dispose: () => img.delete(),
        },
      };
    },
  };
}

async function evaluate(m: Method, samples: Sample[], verbose: boolean, maxClicks = MAX_CLICKS): Promise<QualityRow> {
  const load0 = os.loadavg()[0]!;
  const clickMs: number[] = [];
  let embedMs = 0, iou1 = 0, noc85 = 0, noc90 = 0, failures = 0, harmful = 0, later = 0;
  const perImage: QualityRow['per_image'] = [];
  for (const s of samples) {
    const { session, embedMs: e } = await m.open(s);
    embedMs += e;
    const prompt: Prompt = { positive: [], negative: [], ...(m.box ? { box: promptBox(s.truth, s.width, s.height) } : {}) };
    const ious: number[] = [];
    let n85 = MAX_CLICKS, n90 = MAX_CLICKS;
    // With a box the box is prompt 0; NoC counts the clicks after it.
    let click: { x: number; y: number; positive: boolean } | null = m.box ? null : firstClick(s.truth, s.width, s.height);
    for (let c = m.box ? 0 : 1; c <= maxClicks; c++) {
      if (c > 0) {
        if (!click) break;
        (click.positive ? prompt.positive : prompt.negative).push([click.x + 0.5, click.y + 0.5]);
      }
      const t = performance.now();
      const pred = await session.predict(prompt);
      if (c > 0) clickMs.push(performance.now() - t);
      const v = iou(pred, s.truth);
      if (ious.length && c > 0) {
        later++;
        if (v < ious.at(-1)! - HARMFUL_DROP) harmful++;
      }
      ious.push(v);
      if (v >= 0.85 && n85 === MAX_CLICKS) n85 = c;
      if (v >= 0.9) {
        n90 = c;
        break;
      }
      click = nextClick(pred, s.truth, s.width, s.height);
    }
    session.dispose();
    if (n90 === MAX_CLICKS && ious.at(-1)! < 0.9) failures++;
    iou1 += ious[0] ?? 0;
    noc85 += n85;
    noc90 += n90;
    perImage.push({ name: s.name, ious: ious.map((v) => round(v)) });
    if (verbose) console.log(`${m.name}${m.box ? ' (box)' : ''} ${s.name}: NoC85 ${n85} NoC90 ${n90} IoU ${ious.map((v) => v.toFixed(2)).join(' ')}`);
  }
  const n = samples.length;
  return {
    method: m.name,
    prompt: maxClicks === 0 ? 'box alone' : m.box ? 'box + clicks' : 'clicks',
    images: n,
    iou_1: round(iou1 / n),
    // With no clicks there is no number of clicks (NaN: null in the JSON).
    noc85: maxClicks === 0 ? NaN : round(noc85 / n, 2),
    noc90: maxClicks === 0 ? NaN : round(noc90 / n, 2),
    failures90: failures,
    harmful_click_share: round(later ? harmful / later : 0),
    ms_per_click: { p50: round(percentile(clickMs, 50), 1), mean: round(clickMs.reduce((a, b) => a + b, 0) / Math.max(1, clickMs.length), 1) },
    ...(embedMs ? { embed_ms: round(embedMs / n, 1) } : {}),
    load_average: [round(load0, 2), round(os.loadavg()[0]!, 2)],
    per_image: perImage,
  };
}

/**
 * Runs the chosen methods (`vellum`, `grabcut`) on seg-dev with clicks, and with a box first when
 * `box`; with `boxAlone`, only the box and no clicks (IoU after the box, cheap enough for GrabCut
 * on all 160). Null when the set is absent.
 */
export async function segDevQuality(opts: { methods: string[]; box: boolean; boxAlone?: boolean; limit?: number; verbose?: boolean }): Promise<QualityRow[] | null> {
  const samples = await loadSegDev({ limit: opts.limit });
  if (!samples) {
    console.log(`seg-dev not found at ${SEG_DEV_DIR} (set SEG_DEV_DIR): quality skipped`);
    return null;
  }
  const methods: Method[] = [];
  if (opts.methods.includes('vellum')) {
    const seg = new BuiltinSegmenter(async () => instantiateSegmentKernelsSync(fs.readFileSync(kernelsWasmPath)).segment);
    if (!opts.boxAlone) methods.push(builtin(seg, false));
    if (opts.box || opts.boxAlone) methods.push(builtin(seg, true));
  }
  if (opts.methods.includes('grabcut')) {
    const { cv } = await loadOpenCv();
    if (!opts.boxAlone) methods.push(grabCut(cv, false));
    if (opts.box || opts.boxAlone) methods.push(grabCut(cv, true));
  }
  const rows: QualityRow[] = [];
  for (const m of methods) {
    const row = await evaluate(m, samples, !!opts.verbose, opts.boxAlone ? 0 : MAX_CLICKS);
    const { per_image: _, ...summary } = row;
    console.log(summary);
    rows.push(row);
  }
  return rows;
}
