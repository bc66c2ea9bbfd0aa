// A BMP decoder: sharp (libvips) has none, and uploads accept BMP, so assisted segmentation
// decodes it here to RGB and hands sharp the raw pixels. Covers the BMPs that tools write:
// 1, 4 and 8 bits with a palette, 16 bits (5-5-5 or bit fields), 24 bits, 32 bits (BGRX or bit
// fields), bottom-up or top-down rows, OS/2 core headers. RLE-compressed BMPs (rare) are refused
// with a clear message.

export class BmpError extends Error {}

export interface DecodedBmp {
  width: number;
  height: number;
  /** RGB, 3 bytes a pixel, rows top to bottom. */
  rgb: Uint8Array;
}

const BI_RGB = 0;
const BI_BITFIELDS = 3;
const BI_ALPHABITFIELDS = 6;

/** Reads the value of `mask` in `v` scaled to 0..255. */
function channel(v: number, mask: number): number {
  if (mask === 0) return 0;
  let shift = 0;
  while (((mask >>> shift) & 1) === 0) shift++;
  const max = mask >>> shift;
  return Math.round((((v & mask) >>> shift) * 255) / max);
}

export function isBmp(bytes: Uint8Array): boolean {
  return bytes.length >= 26 && bytes[0] === 0x42 && bytes[1] === 0x4d;
}

export function decodeBmp(buf: Buffer, maxPixels: number): DecodedBmp {
  if (!isBmp(buf)) throw new BmpError('Not a BMP file');
  const dataOffset = buf.readUInt32LE(10);
  const headerSize = buf.readUInt32LE(14);
  const core = headerSize === 12;
  const width = core ? buf.readUInt16LE(18) : buf.readInt32LE(18);
  const rawHeight = core ? buf.readInt16LE(20) : buf.readInt32LE(22);
  const bpp = core ? buf.readUInt16LE(24) : buf.readUInt16LE(28);
  const compression = core ? BI_RGB : buf.readUInt32LE(30);
  const topDown = rawHeight < 0;
  const height = Math.abs(rawHeight);
  if (width <= 0 || height <= 0) throw new BmpError('The BMP file has no pixels');
  if (width * height > maxPixels) throw new BmpError(`The BMP file has ${width * height} pixels, more than ${maxPixels}`);
  if (compression !== BI_RGB && compression !== BI_BITFIELDS && compression !== BI_ALPHABITFIELDS) {
    throw new BmpError(`Compressed BMP files (compression ${compression}) cannot be read; save it uncompressed or as PNG`);
  }
  if (![1, 4, 8, 16, 24, 32].includes(bpp)) throw new BmpError(`BMP files of ${bpp} bits a pixel cannot be read`);

  // Bit fields: in the header (V2 and later), or right after a 40-byte header.
  let masks: [number, number, number] = bpp === 16 ? [0x7c00, 0x03e0, 0x001f] : [0xff0000, 0x00ff00, 0x0000ff];
  if (compression !== BI_RGB && !core) masks = [buf.readUInt32LE(54), buf.readUInt32LE(58), buf.readUInt32LE(62)];

  let palette: Uint8Array | null = null;
  if (bpp <= 8) {
    const entry = core ? 3 : 4;
    const used = core ? 0 : buf.readUInt32LE(46);
    const count = used || 1 << bpp;
    const start = 14 + headerSize + (!core && compression === BI_BITFIELDS && headerSize === 40 ? 12 : 0);
    palette = new Uint8Array(256 * 3);
    for (let i = 0; i < count && start + i * entry + 2 < buf.length; i++) {
      palette[i * 3] = buf[start + i * entry + 2]!;
      palette[i * 3 + 1] = buf[start + i * entry + 1]!;
      palette[i * 3 + 2] = buf[start + i * entry]!;
    }
  }

  const stride = Math.floor((bpp * width + 31) / 32) * 4;
  if (dataOffset + stride * height > buf.length) throw new BmpError('The BMP file is truncated');
  const rgb = new Uint8Array(width * height * 3);
  for (let row = 0; row < height; row++) {
    const src = dataOffset + (topDown ? row : height - 1 - row) * stride;
    let o = row * width * 3;
    for (let x = 0; x < width; x++, o += 3) {
      if (palette) {
        const bit = x * bpp;
        const byte = buf[src + (bit >> 3)]!;
        const index = bpp === 8 ? byte : (byte >> (8 - bpp - (bit & 7))) & ((1 << bpp) - 1);
        rgb[o] = palette[index * 3]!;
        rgb[o + 1] = palette[index * 3 + 1]!;
        rgb[o + 2] = palette[index * 3 + 2]!;
      } else if (bpp === 24 || (bpp === 32 && compression === BI_RGB)) {
        const p = src + x * (bpp / 8);
        rgb[o] = buf[p + 2]!;
        rgb[o + 1] = buf[p + 1]!;
        rgb[o + 2] = buf[p]!;
      } else {
        const v = bpp === 16 ? buf.readUInt16LE(src + x * 2) : buf.readUInt32LE(src + x * 4);
        rgb[o] = channel(v, masks[0]);
        rgb[o + 1] = channel(v, masks[1]);
        rgb[o + 2] = channel(v, masks[2]);
      }
    }
  }
  return { width, height, rgb };
}
