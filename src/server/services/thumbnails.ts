// What a stored upload really is: its format from its magic bytes, its size in pixels (with a
// decompression-bomb limit), the SVG safety check (svg-safety.ts), and the WebP thumbnail. Everything reads a local
// file (the register flow downloads the object first) so libvips streams it from disk instead of
// holding a 200 MB upload in memory, as sharp does with stream input.
import fsp from 'node:fs/promises';
import sharp, { type Metadata } from 'sharp';
import { MAX_IMAGE_PIXELS, THUMBNAIL_SIZE, type ImageMimeType } from '../../contract/images';
import type { ApiErrorCodeWith } from '../../contract/errors';

export class ImageCheckError extends Error {
  constructor(
    readonly status: 413 | 415,
    readonly code: ApiErrorCodeWith<413 | 415>,
    message: string,
  ) {
    super(message);
  }
}

/** The format the first bytes announce, or null when they are not one of the accepted image types. */
export function detectImageType(head: Buffer): ImageMimeType | null {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (head.length >= 8 && head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (head.length >= 6 && (head.subarray(0, 6).toString('latin1') === 'GIF87a' || head.subarray(0, 6).toString('latin1') === 'GIF89a')) return 'image/gif';
  if (head.length >= 12 && head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  if (head.length >= 26 && head[0] === 0x42 && head[1] === 0x4d && [12, 40, 52, 56, 64, 108, 124].includes(head.readUInt32LE(14))) return 'image/bmp';
  if (looksLikeSvg(head)) return 'image/svg+xml';
  return null;
}

/** XML prolog, comments and a doctype may come before the root element; the root must be <svg. */
function looksLikeSvg(head: Buffer): boolean {
  let text = head.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  for (;;) {
    text = text.replace(/^\s+/, '');
    if (text.startsWith('<?xml')) {
      const end = text.indexOf('?>');
      if (end < 0) return false;
      text = text.slice(end + 2);
    } else if (text.startsWith('<!--')) {
      const end = text.indexOf('-->');
      if (end < 0) return false;
      text = text.slice(end + 3);
    } else if (/^<!DOCTYPE/i.test(text)) {
      // An internal subset ([ ... ]) may hold '>' of its own: skip past its closing ']>'.
      const gt = text.indexOf('>');
      const bracket = text.indexOf('[');
      const end = bracket >= 0 && bracket < gt ? text.indexOf(']>', bracket) + 1 : gt;
      if (end <= 0) return false;
      text = text.slice(end + 1);
    } else {
      return /^<svg[\s>/]/i.test(text) || /^<[A-Za-z_][\w.-]*:svg[\s>/]/.test(text);
    }
  }
}

// The SVG safety check (an allow-list over the parsed XML) lives in svg-safety.ts.
export { svgProblem } from './svg-safety';

export interface Inspected {
  width: number;
  height: number;
}

const PIXEL_LIMIT_MESSAGE = `The image is larger than the ${MAX_IMAGE_PIXELS.toLocaleString('en-US')} pixels (20000 x 20000) allowed`;

function tooManyPixels(width: number, height: number): boolean {
  return width * height > MAX_IMAGE_PIXELS;
}

/** Width and height from a BMP header (sharp has no BMP decoder). Height is negative for top-down files. */
function bmpSize(head: Buffer): Inspected {
  const headerSize = head.readUInt32LE(14);
  if (headerSize === 12) return { width: head.readUInt16LE(18), height: head.readUInt16LE(20) };
  return { width: Math.abs(head.readInt32LE(18)), height: Math.abs(head.readInt32LE(22)) };
}

/**
 * Width and height as the browser shows the image (EXIF orientation applied; first frame of an
 * animation). libvips reads only the header here; `limitInputPixels` refuses a bomb before any decode.
 */
export async function inspectImage(file: string, mime: ImageMimeType): Promise<Inspected> {
  if (mime === 'image/bmp') {
    const fh = await fsp.open(file, 'r');
    try {
      const head = Buffer.alloc(26);
      await fh.read(head, 0, 26, 0);
      const size = bmpSize(head);
      if (size.width === 0 || size.height === 0) throw new ImageCheckError(415, 'corrupt_image', 'The BMP file has no pixels');
      if (tooManyPixels(size.width, size.height)) throw new ImageCheckError(413, 'too_many_pixels', `${PIXEL_LIMIT_MESSAGE} (${size.width} x ${size.height})`);
      return size;
    } finally {
      await fh.close();
    }
  }
  let meta: Metadata;
  try {
    meta = await sharp(file, { limitInputPixels: MAX_IMAGE_PIXELS }).metadata();
  } catch (err) {
    throw decodeError(err, mime);
  }
  const width = meta.autoOrient?.width ?? meta.width;
  const height = meta.autoOrient?.height ?? meta.height;
  if (!width || !height) throw new ImageCheckError(415, 'corrupt_image', `The file could not be read as ${mime}`);
  if (tooManyPixels(width, height)) throw new ImageCheckError(413, 'too_many_pixels', `${PIXEL_LIMIT_MESSAGE} (${width} x ${height})`);
  return { width, height };
}

function decodeError(err: unknown, mime: ImageMimeType): ImageCheckError {
  const message = (err as Error)?.message ?? '';
  if (/pixel limit/i.test(message)) return new ImageCheckError(413, 'too_many_pixels', PIXEL_LIMIT_MESSAGE);
  return new ImageCheckError(415, 'corrupt_image', `The file could not be read as ${mime}: ${message.split('\n')[0].slice(0, 200)}`);
}

// Decoding a 400 Mpx image costs a core for about a second: at most two at a time per process.
const MAX_CONCURRENT = 2;
let running = 0;
const waiting: (() => void)[] = [];

async function withSlot<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= MAX_CONCURRENT) await new Promise<void>((resolve) => waiting.push(resolve));
  running += 1;
  try {
    return await fn();
  } finally {
    running -= 1;
    waiting.shift()?.();
  }
}

/**
 * The WebP thumbnail (longest side THUMBNAIL_SIZE, never enlarged), or null for formats sharp cannot
 * decode (BMP: browsers show the original instead). sequentialRead lets libvips stream rows from the
 * file through the shrink, so memory stays bounded for a 20000 x 20000 PNG.
 */
export async function makeThumbnail(file: string, mime: ImageMimeType): Promise<Buffer | null> {
  if (mime === 'image/bmp') return null;
  return withSlot(async () => {
    try {
      return await sharp(file, { limitInputPixels: MAX_IMAGE_PIXELS, sequentialRead: true })
        .autoOrient()
        .resize(THUMBNAIL_SIZE, THUMBNAIL_SIZE, { fit: 'inside', withoutEnlargement: true })
        .webp({ quality: 80, effort: 2 })
        .toBuffer();
    } catch (err) {
      throw decodeError(err, mime);
    }
  });
}
