// Reads an image from object storage and decodes it with sharp, oriented as the browser shows it
// (EXIF orientation applied), scaled to fit the segmenter's working size. JPEGs shrink while they
// decode, so a 48 MP photo never sits in memory at full size. BMP (which sharp cannot read) is
// decoded by ../bmp.ts first, on an offload thread (src/server/offload).
import sharp from 'sharp';
import { MAX_IMAGE_PIXELS } from '../../../contract/images';
import type { LoadedImage } from './types';
import { isBmp } from '../bmp';
import { offload } from '../../offload/pool';

export class ImageDecodeError extends Error {}

async function streamToBuffer(body: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks);
}

/**
 * Largest BMP decoded (its RGB is held whole, 3 bytes a pixel: 192 MB here; a 1-bit BMP of the
 * 400 Mpx upload cap would need 1.2 GB).
 */
export const BMP_MAX_PIXELS = 64_000_000;

/** Largest image (pixels) whose original-size RGB is kept for edge refinement (3 bytes a pixel, counted in the cache's bound). */
export const FULL_RES_MAX_PIXELS = 24_000_000;

/** Decodes image bytes to RGB fitting `maxSide` (never enlarged), and at the original size too with `fullRes`. */
export async function decodeImage(bytes: Buffer, maxSide: number, fullRes = false): Promise<LoadedImage> {
  try {
    // sharp has no BMP decoder: BMP pixels are decoded on an offload thread and given to it raw.
    const bmp = isBmp(bytes) ? await offload('decodeBmp', [bytes, BMP_MAX_PIXELS]) : null;
    const open = () =>
      bmp
        ? sharp(Buffer.from(bmp.rgb.buffer, bmp.rgb.byteOffset, bmp.rgb.byteLength), { raw: { width: bmp.width, height: bmp.height, channels: 3 }, limitInputPixels: MAX_IMAGE_PIXELS })
        : sharp(bytes, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'none', pages: 1 });
    const meta = await open().metadata();
    const width = meta.autoOrient?.width ?? meta.width;
    const height = meta.autoOrient?.height ?? meta.height;
    if (!width || !height) throw new ImageDecodeError('The image has no size');
    const { data, info } = await open()
      .autoOrient()
      .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true, fastShrinkOnLoad: true })
      .removeAlpha()
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3) throw new ImageDecodeError(`Unexpected ${info.channels} channels`);
    const img: LoadedImage = { width, height, rgb: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), w: info.width, h: info.height };
    if (fullRes && (info.width !== width || info.height !== height) && width * height <= FULL_RES_MAX_PIXELS) {
      const f = await open().autoOrient().removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
      if (f.info.channels === 3 && f.info.width === width && f.info.height === height) img.full = new Uint8Array(f.data.buffer, f.data.byteOffset, f.data.byteLength);
    }
    return img;
  } catch (err) {
    if (err instanceof ImageDecodeError) throw err;
    throw new ImageDecodeError(`The image cannot be decoded: ${(err as Error).message}`);
  }
}

export async function readObject(body: NodeJS.ReadableStream): Promise<Buffer> {
  return streamToBuffer(body);
}
