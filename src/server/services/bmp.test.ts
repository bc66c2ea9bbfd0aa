import { describe, expect, it } from 'vitest';
import { BmpError, decodeBmp } from './bmp';

const W = 5, H = 3;
/** A 5x3 RGB test picture: every pixel different. */
const picture = Uint8Array.from({ length: W * H * 3 }, (_, i) => (i * 37 + 11) % 256);

/** Writes a BMP the way tools do: 40-byte header (or 12 for OS/2), rows padded to 4 bytes. */
function bmp(opts: { bpp: number; topDown?: boolean; core?: boolean; palette?: number[][]; masks?: number[]; pixel: (x: number, y: number) => number[] }): Buffer {
  const headerSize = opts.core ? 12 : 40;
  const extra = opts.masks ? 12 : 0;
  const paletteBytes = (opts.palette?.length ?? 0) * (opts.core ? 3 : 4);
  const stride = Math.floor((opts.bpp * W + 31) / 32) * 4;
  const offset = 14 + headerSize + extra + paletteBytes;
  const buf = Buffer.alloc(offset + stride * H);
  buf.write('BM', 0, 'latin1');
  buf.writeUInt32LE(buf.length, 2);
  buf.writeUInt32LE(offset, 10);
  buf.writeUInt32LE(headerSize, 14);
  if (opts.core) {
    buf.writeUInt16LE(W, 18);
    buf.writeInt16LE(H, 20);
    buf.writeUInt16LE(1, 22);
    buf.writeUInt16LE(opts.bpp, 24);
  } else {
    buf.writeInt32LE(W, 18);
    buf.writeInt32LE(opts.topDown ? -H : H, 22);
    buf.writeUInt16LE(1, 26);
    buf.writeUInt16LE(opts.bpp, 28);
    buf.writeUInt32LE(opts.masks ? 3 : 0, 30);
    buf.writeUInt32LE(opts.palette?.length ?? 0, 46);
    opts.masks?.forEach((m, i) => buf.writeUInt32LE(m, 54 + i * 4));
  }
  opts.palette?.forEach(([r, g, b], i) => {
    const at = 14 + headerSize + extra + i * (opts.core ? 3 : 4);
    buf[at] = b!;
    buf[at + 1] = g!;
    buf[at + 2] = r!;
  });
  for (let y = 0; y < H; y++) {
    const row = offset + (opts.topDown ? y : H - 1 - y) * stride;
    for (let x = 0; x < W; x++) {
      const v = opts.pixel(x, y);
      if (opts.bpp === 24) [buf[row + x * 3 + 2], buf[row + x * 3 + 1], buf[row + x * 3]] = v;
      else if (opts.bpp === 32) buf.writeUInt32LE(v[0]!, row + x * 4);
      else if (opts.bpp === 16) buf.writeUInt16LE(v[0]!, row + x * 2);
      else if (opts.bpp === 8) buf[row + x] = v[0]!;
      else if (opts.bpp === 1) buf[row + (x >> 3)] |= v[0]! << (7 - (x & 7));
    }
  }
  return buf;
}
const rgbAt = (x: number, y: number) => Array.from(picture.subarray((y * W + x) * 3, (y * W + x) * 3 + 3));

describe('BMP decoding', () => {
  it('reads 24-bit files bottom-up and 32-bit files top-down, pixel for pixel', () => {
    expect(Array.from(decodeBmp(bmp({ bpp: 24, pixel: rgbAt }), 1e6).rgb)).toEqual(Array.from(picture));
    const bgrx = (x: number, y: number) => {
      const [r, g, b] = rgbAt(x, y);
      return [((r! << 16) | (g! << 8) | b!) >>> 0];
    };
    expect(Array.from(decodeBmp(bmp({ bpp: 32, topDown: true, pixel: bgrx }), 1e6).rgb)).toEqual(Array.from(picture));
  });

  it('reads palettes (8 and 1 bits, and an OS/2 core header)', () => {
    const palette = Array.from({ length: W * H }, (_, i) => rgbAt(i % W, Math.floor(i / W)));
    expect(Array.from(decodeBmp(bmp({ bpp: 8, palette, pixel: (x, y) => [y * W + x] }), 1e6).rgb)).toEqual(Array.from(picture));
    const bw = decodeBmp(bmp({ bpp: 1, core: true, palette: [[0, 0, 0], [255, 255, 255]], pixel: (x, y) => [(x + y) % 2] }), 1e6);
    expect(Array.from(bw.rgb.subarray(0, 6))).toEqual([0, 0, 0, 255, 255, 255]);
  });

  it('reads 16-bit 5-6-5 bit fields', () => {
    const out = decodeBmp(bmp({ bpp: 16, masks: [0xf800, 0x07e0, 0x001f], pixel: () => [0xf800 | (0x20 << 5)] }), 1e6);
    expect(Array.from(out.rgb.subarray(0, 3))).toEqual([255, Math.round((32 * 255) / 63), 0]);
  });

  it('refuses truncated, compressed and oversized files with a reason', () => {
    const good = bmp({ bpp: 24, pixel: rgbAt });
    expect(() => decodeBmp(good.subarray(0, good.length - 4), 1e6)).toThrow(BmpError);
    const rle = Buffer.from(good);
    rle.writeUInt32LE(1, 30);
    expect(() => decodeBmp(rle, 1e6)).toThrow(/Compressed BMP/);
    expect(() => decodeBmp(good, 10)).toThrow(/more than 10/);
  });
});
