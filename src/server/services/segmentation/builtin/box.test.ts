// Box prompts and the shape priors of the built-in segmenter on generated images: a box alone
// finds the object inside it, nothing leaks outside the box, later clicks refine it; the mask is
// one piece connected to the clicks (star convexity); the references and the wasm kernels agree.
import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildKernels } from '../../../../../assembly/build.mjs';
import { kernelsWasmPath } from '../../../../kernels/node';
import { instantiateSegmentKernelsSync, type SegmentKernels } from '../../../../kernels/segment';
import { iou, nextClick, syntheticImage } from '../../../../../tests/fixtures/segmentation';
import { buildStructure, segment } from './algorithm';
import { referenceOps } from './reference-ops';

let seg: SegmentKernels;
beforeAll(async () => {
  await buildKernels({ quiet: true });
  seg = instantiateSegmentKernelsSync(fs.readFileSync(kernelsWasmPath)).segment;
});

const W = 320, H = 240;

function truthBox(truth: Uint8Array): [number, number, number, number] {
  let x0 = W, y0 = H, x1 = -1, y1 = -1;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      if (!truth[y * W + x]) continue;
      x0 = Math.min(x0, x);
      x1 = Math.max(x1, x);
      y0 = Math.min(y0, y);
      y1 = Math.max(y1, y);
    }
  }
  return [Math.max(0, x0 - 4), Math.max(0, y0 - 4), Math.min(W, x1 + 5), Math.min(H, y1 + 5)];
}

describe('built-in segmenter: box prompts', () => {
  it('a box alone finds the object, nothing outside the box, and clicks refine it', () => {
    const first: number[] = [], best: number[] = [];
    for (const seedNo of [310, 311, 312, 313]) {
      const img = syntheticImage(seedNo, W, H);
      const st = buildStructure(seg, img.rgb, W, H, 3);
      const box = truthBox(img.truth);
      const pos: [number, number][] = [], neg: [number, number][] = [];
      let out = segment(seg, st, { positive: pos, negative: neg, box });
      for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) if (x < box[0] || x >= box[2] || y < box[1] || y >= box[3]) expect(out.mask[y * W + x]).toBe(0);
      first.push(iou(out.mask, img.truth));
      let top = first.at(-1)!;
      for (let c = 0; c < 4 && top < 0.95; c++) {
        const click = nextClick(out.mask, img.truth, W, H);
        if (!click) break;
        (click.positive ? pos : neg).push([click.x + 0.5, click.y + 0.5]);
        out = segment(seg, st, { positive: pos, negative: neg, box, previous: out.spFg });
        top = Math.max(top, iou(out.mask, img.truth));
      }
      best.push(top);
    }
    expect(first.reduce((a, b) => a + b, 0) / first.length).toBeGreaterThan(0.65);
    for (const v of best) expect(v).toBeGreaterThan(0.85);
  });

  it('a box alone never answers nothing: when the colours inside it are common outside, it answers the box', () => {
    // Red on the left two thirds, grey on the right, and a red disc on the grey: every colour in the
    // box is more common outside it, so the colour models alone keep nothing inside.
    const rgb = new Uint8Array(W * H * 3), truth = new Uint8Array(W * H);
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const disc = (x - 275) ** 2 + (y - 120) ** 2 < 30 ** 2;
        const red = x < 215 || disc;
        rgb.set(red ? [200, 40, 40] : [128, 128, 128], (y * W + x) * 3);
        truth[y * W + x] = disc ? 1 : 0;
      }
    }
    const st = buildStructure(seg, rgb, W, H, 3);
    const box = truthBox(truth);
    const out = segment(seg, st, { positive: [], negative: [], box });
    let outside = 0;
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) if (x < box[0] || x >= box[2] || y < box[1] || y >= box[3]) outside += out.mask[y * W + x]!;
    expect(outside).toBe(0);
    expect(iou(out.mask, truth)).toBeGreaterThan(0.5);
  });

  it('a box alone keeps an object in its own shadow out of the shadow', () => {
    // A yellow disc in a dark shadow that fades smoothly into lighter ground across the box's edge:
    // the shadow's colours are mostly inside the box, so colour alone calls them object; cutting
    // along the box through the smooth fade is what must cost.
    const rgb = new Uint8Array(W * H * 3), truth = new Uint8Array(W * H);
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const r = Math.hypot(x - 160, y - 120);
        const disc = r < 40;
        const g = Math.round(40 + Math.min(1, Math.max(0, r - 40) / 60) * 140);
        const n = ((x * 7919 + y * 104729) % 13) - 6;
        rgb.set(disc ? [220 + n, 190 + n, 40] : [g + n, g + n - 10, g + n - 20], (y * W + x) * 3);
        truth[y * W + x] = disc ? 1 : 0;
      }
    }
    const st = buildStructure(seg, rgb, W, H, 3);
    const out = segment(seg, st, { positive: [], negative: [], box: [112, 72, 208, 168] });
    expect(iou(out.mask, truth)).toBeGreaterThan(0.9);
  });

  it('a box alone keeps every sizeable part of an object the background splits', () => {
    // Two red blocks (a pair of shoes) with grey ground between them and around them.
    const rgb = new Uint8Array(W * H * 3), truth = new Uint8Array(W * H);
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const n = ((x * 7919 + y * 104729) % 13) - 6;
        const left = x >= 100 && x < 150 && y >= 80 && y < 170, right = x >= 175 && x < 220 && y >= 90 && y < 165;
        rgb.set(left || right ? [190 + n, 40 + n, 50 + n] : [120 + n, 125 + n, 120 + n], (y * W + x) * 3);
        truth[y * W + x] = left || right ? 1 : 0;
      }
    }
    const st = buildStructure(seg, rgb, W, H, 3);
    const out = segment(seg, st, { positive: [], negative: [], box: truthBox(truth) });
    expect(iou(out.mask, truth)).toBeGreaterThan(0.9);
  });

  it('the mask is connected to the clicks and the references agree with the kernels', () => {
    const img = syntheticImage(320, W, H);
    const stW = buildStructure(seg, img.rgb, W, H, 3);
    const stR = buildStructure(referenceOps, img.rgb, W, H, 3);
    const input = { positive: [img.centre] as [number, number][], negative: [] };
    const a = segment(seg, stW, input), b = segment(referenceOps, stR, input);
    expect(iou(a.mask, b.mask)).toBeGreaterThan(0.99);
    // One 4-connected piece containing the click (holes filled, no islands).
    const seen = new Uint8Array(W * H);
    const stack = [Math.floor(img.centre[1]) * W + Math.floor(img.centre[0])];
    seen[stack[0]!] = 1;
    let reached = 0;
    while (stack.length) {
      const p = stack.pop()!, x = p % W;
      reached++;
      for (const q of [x > 0 ? p - 1 : -1, x < W - 1 ? p + 1 : -1, p - W, p + W]) {
        if (q >= 0 && q < W * H && a.mask[q] && !seen[q]) {
          seen[q] = 1;
          stack.push(q);
        }
      }
    }
    let total = 0;
    for (let i = 0; i < W * H; i++) total += a.mask[i]!;
    expect(reached).toBe(total);
  });
});
