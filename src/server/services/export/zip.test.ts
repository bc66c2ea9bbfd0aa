// ZipWriter: what a standard reader (JSZip) finds in its zips, ZIP64 end records included.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import JSZip from 'jszip';
import { afterEach, describe, expect, it } from 'vitest';
import { ZipWriter } from './zip';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function write(fill: (zip: ZipWriter) => Promise<void>): Promise<Buffer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vellum-zip-test-'));
  dirs.push(dir);
  const chunks: Buffer[] = [];
  const zip = new ZipWriter({ write: async (c) => void chunks.push(c), centralDirectoryPath: path.join(dir, 'cd.bin'), mtime: new Date(2024, 5, 1, 12, 30, 10) });
  await fill(zip);
  await zip.finish();
  return Buffer.concat(chunks);
}

describe('ZipWriter', () => {
  it('writes deflated and stored entries from buffers and streams, with UTF-8 names', async () => {
    const big = Buffer.alloc(300_000);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7919) % 251;
    const bytes = await write(async (zip) => {
      await zip.add('README.txt', Buffer.from('hello\n'), true);
      await zip.add('images/straße/ü.png', Readable.from([big.subarray(0, 100_000), big.subarray(100_000)]), false);
      await zip.add('annotations/x.json', Readable.from([Buffer.from('{"a":'), Buffer.from('1}')]), true);
      await zip.add('empty.txt', Buffer.alloc(0), true);
    });
    const zip = await JSZip.loadAsync(bytes, { checkCRC32: true });
    expect(Object.keys(zip.files)).toEqual(['README.txt', 'images/straße/ü.png', 'annotations/x.json', 'empty.txt']);
    expect(await zip.file('README.txt')!.async('string')).toBe('hello\n');
    expect(Buffer.from(await zip.file('images/straße/ü.png')!.async('uint8array')).equals(big)).toBe(true);
    expect(await zip.file('annotations/x.json')!.async('string')).toBe('{"a":1}');
    expect(await zip.file('empty.txt')!.async('string')).toBe('');
    expect(zip.file('README.txt')!.date.getUTCFullYear()).toBe(2024);
  });

  it('switches to the ZIP64 end records past 65,534 entries', { timeout: 60_000 }, async () => {
    const n = 70_000;
    const bytes = await write(async (zip) => {
      for (let i = 0; i < n; i++) await zip.add(`f/${i}.txt`, Buffer.from(String(i)), false);
    });
    expect(bytes.readUInt16LE(bytes.length - 22 + 10)).toBe(0xffff); // the classic record defers to ZIP64
    const zip = await JSZip.loadAsync(bytes);
    const names = Object.keys(zip.files).filter((name) => !zip.files[name]!.dir);
    expect(names).toHaveLength(n);
    expect(await zip.file(`f/${n - 1}.txt`)!.async('string')).toBe(String(n - 1));
  });

  it('passes on the error of a failing source', async () => {
    const failing = new Readable({
      read() {
        this.destroy(new Error('storage went away'));
      },
    });
    await expect(write((zip) => zip.add('x.bin', failing, false))).rejects.toThrow('storage went away');
  });
});
