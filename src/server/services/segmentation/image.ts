// Reads an image from object storage and decodes it with sharp, oriented as the browser shows it
// (EXIF orientation applied), scaled to fit the segmenter's working size. JPEGs shrink while they
// decode, so a 48 MP photo never sits in memory at full size.
import sharp from 'sharp';
import { MAX_IMAGE_PIXELS } from '../../../contract/images';
import type { LoadedImage } from './types';

export class ImageDecodeError extends Error {}

async function streamToBuffer(body: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks);
}

/** Decodes image bytes to RGB fitting `maxSide` (never enlarged). */
export async function decodeImage(bytes: Buffer, maxSide: number): Promise<LoadedImage> {
  try {
    const base = sharp(bytes, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'none', pages: 1 });
    const meta = await base.metadata();
    const width = meta.autoOrient?.width ?? meta.width;
    const height = meta.autoOrient?.height ?? meta.height;
    if (!width || !height) throw new ImageDecodeError('The image has no size');
    const { data, info } = await sharp(bytes, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'none', pages: 1 })
      .autoOrient()
      .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true, fastShrinkOnLoad: true })
      .removeAlpha()
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3) throw new ImageDecodeError(`Unexpected ${info.channels} channels`);
    return { width, height, rgb: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), w: info.width, h: info.height };
  } catch (err) {
    if (err instanceof ImageDecodeError) throw err;
    throw new ImageDecodeError(`The image cannot be decoded: ${(err as Error).message}`);
  }
}

export async function readObject(body: NodeJS.ReadableStream): Promise<Buffer> {
  return streamToBuffer(body);
}
