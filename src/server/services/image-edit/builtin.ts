// The built-in edit provider: no model, no network. The prompt becomes a list of steps
// (vocabulary.ts), applied in order to the decoded pixels: geometry and blur/sharpen through sharp
// (libuv's threads), colour and weather effects as plain loops over the raw buffer (pixels.ts) on an
// offload thread, so a large image never holds the event loop. Random effects (noise, rain, snow)
// draw from a PRNG seeded by the job's seed and the step's position, so the same seed gives the
// same bytes.
import sharp, { type Sharp } from 'sharp';
import type { EditInput, EditOutput, EditProvider } from './provider';
import { EditFailure } from './provider';
import { isGeoStep, parsePrompt, stepsSlug, VOCABULARY, type EditStep, type GeoStep } from './vocabulary';
import { isPixelStep, stepSeed, type PixelStep, type Raw } from './pixels';
import { offload } from '../../offload/pool';

export { prng } from './pixels';

/** Raw pixels are held in memory while editing: above this the built-in editor refuses the image. */
export const MAX_BUILTIN_PIXELS = 100_000_000;

async function viaSharp(img: Raw, op: (s: Sharp) => Sharp): Promise<Raw> {
  const { data, info } = await op(sharp(img.data, { raw: { width: img.width, height: img.height, channels: img.channels as 3 | 4 } }))
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

const SHARP_GEO: Record<GeoStep, (s: Sharp) => Sharp> = {
  flip_h: (s) => s.flop(),
  flip_v: (s) => s.flip(),
  rotate_90: (s) => s.rotate(90),
  rotate_180: (s) => s.rotate(180),
  rotate_270: (s) => s.rotate(270),
};

/** Runs a pixel step somewhere (the offload pool by default; tests compare it with in-line) and answers the edited pixels. */
export type PixelRunner = (img: Raw, step: PixelStep, seed: number) => Promise<Raw>;

/** The pixels are copied to the thread and the edited ones moved back. */
export const offloadedPixels: PixelRunner = (img, step, seed) => offload('imageEditPixels', [img, step, seed]);

async function applyStep(img: Raw, step: EditStep, seed: number, pixels: PixelRunner): Promise<Raw> {
  if (isGeoStep(step)) return viaSharp(img, SHARP_GEO[step]);
  const minDim = Math.min(img.width, img.height);
  if (step === 'blur') return viaSharp(img, (s) => s.blur(Math.min(20, Math.max(1, minDim / 300))));
  if (step === 'sharpen') return viaSharp(img, (s) => s.sharpen({ sigma: Math.min(5, Math.max(1, minDim / 800)), m1: 1, m2: 3 }));
  if (!isPixelStep(step)) throw new EditFailure(`Unknown step ${String(step)}`);
  const out = await pixels(img, step, seed);
  return step === 'fog' ? viaSharp(out, (s) => s.blur(Math.min(6, Math.max(0.6, minDim / 900)))) : out;
}

export type BuiltinFormat = 'image/png' | 'image/jpeg' | 'image/webp';

/** The output keeps a web format of the source; others (gif, bmp, svg) become PNG. */
export function outputMimeFor(source: string): BuiltinFormat {
  return source === 'image/jpeg' || source === 'image/webp' ? source : 'image/png';
}

async function encode(img: Raw, mime: BuiltinFormat): Promise<Buffer> {
  const s = sharp(img.data, { raw: { width: img.width, height: img.height, channels: img.channels as 3 | 4 } });
  if (mime === 'image/jpeg') return s.jpeg({ quality: 92, mozjpeg: false }).toBuffer();
  if (mime === 'image/webp') return s.webp({ quality: 92 }).toBuffer();
  return s.png({ compressionLevel: 6 }).toBuffer();
}

/** Decodes, applies the steps and encodes; the steps must come from parsePrompt. */
export async function runSteps(bytes: Buffer, sourceMime: string, steps: readonly EditStep[], seed: number, pixels: PixelRunner = offloadedPixels): Promise<{ bytes: Buffer; mime: BuiltinFormat; width: number; height: number }> {
  let img: Raw;
  try {
    // The header only (no pixels are decoded), read without the pixel limit so that an image
    // above it gets the message naming its size rather than sharp's generic refusal.
    const meta = await sharp(bytes, { limitInputPixels: false }).metadata();
    const w = meta.autoOrient?.width ?? meta.width ?? 0;
    const h = meta.autoOrient?.height ?? meta.height ?? 0;
    if (w * h > MAX_BUILTIN_PIXELS) throw new EditFailure(`The image is ${w} x ${h}: the built-in editor takes images up to ${MAX_BUILTIN_PIXELS / 1e6} MP`);
    const { data, info } = await sharp(bytes, { limitInputPixels: MAX_BUILTIN_PIXELS })
      .autoOrient()
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    img = { data, width: info.width, height: info.height, channels: info.channels };
  } catch (err) {
    if (err instanceof EditFailure) throw err;
    throw new EditFailure(`The image could not be read: ${((err as Error).message ?? '').split('\n')[0]!.slice(0, 200)}`);
  }
  if (img.channels < 3) img = await viaSharp(img, (s) => s.toColourspace('srgb'));
  for (const [i, step] of steps.entries()) img = await applyStep(img, step, stepSeed(seed, i), pixels);
  const mime = outputMimeFor(sourceMime);
  return { bytes: await encode(img, mime), mime, width: img.width, height: img.height };
}

export function createBuiltinProvider(): EditProvider {
  return {
    kind: 'builtin',
    model: null,
    endpoint: null,
    vocabulary: VOCABULARY,
    lastError: () => null,
    plan(prompt) {
      const parsed = parsePrompt(prompt);
      if (!parsed.ok) return { ok: false, error: parsed.error };
      return { ok: true, slug: stepsSlug(parsed.steps), transforms: parsed.steps.filter(isGeoStep), labelMode: 'exact' };
    },
    async edit(input: EditInput): Promise<EditOutput> {
      const parsed = parsePrompt(input.prompt);
      if (!parsed.ok) throw new EditFailure(parsed.error);
      const out = await runSteps(input.bytes, input.mime, parsed.steps, input.seed);
      return { ...out, transforms: parsed.steps.filter(isGeoStep), labelMode: 'exact' };
    },
  };
}
