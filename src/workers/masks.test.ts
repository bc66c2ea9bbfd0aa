import { describe, expect, it } from 'vitest';
import type { Regl } from 'regl';
import { MaskAtlases, subsample, type MaskPlace } from './masks';

/** A stand-in for regl's texture API: records uploads and destroys. */
function fakeRegl() {
  const log = { created: 0, destroyed: 0, cleared: 0, uploads: [] as { x: number; y: number; w: number; h: number; data: Uint8Array }[] };
  const regl = {
    texture(opts: { width: number; height: number }) {
      log.created++;
      const tex = Object.assign(() => { log.cleared++; return tex; }, {
        width: opts.width,
        height: opts.height,
        subimage(img: { width: number; height: number; data: Uint8Array }, x: number, y: number) {
          if (x + img.width > opts.width || y + img.height > opts.height) throw new Error('subimage out of bounds');
          log.uploads.push({ x, y, w: img.width, h: img.height, data: img.data });
          return tex;
        },
        destroy() { log.destroyed++; },
      });
      return tex;
    },
  };
  return { regl: regl as unknown as Regl, log };
}

const overlaps = (a: MaskPlace, b: MaskPlace) =>
  a.atlas === b.atlas && a.u < b.u + b.tw + 1 && b.u < a.u + a.tw + 1 && a.v < b.v + b.th + 1 && b.v < a.v + a.th + 1;

describe('MaskAtlases', () => {
  it('packs blocks without overlap, one texel apart, inside the atlas', () => {
    const { regl } = fakeRegl();
    const atlases = new MaskAtlases(regl, 256);
    let seed = 3;
    const rand = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
    const places: MaskPlace[] = [];
    for (let i = 0; i < 60; i++) {
      const tw = 1 + Math.floor(rand() * 90), th = 1 + Math.floor(rand() * 90);
      places.push(atlases.add(tw, th, new Uint8Array(tw * th)));
    }
    for (const p of places) {
      expect(p.u + p.tw).toBeLessThanOrEqual(p.atlas.w);
      expect(p.v + p.th).toBeLessThanOrEqual(p.atlas.h);
    }
    for (let i = 0; i < places.length; i++) for (let j = i + 1; j < places.length; j++) expect(overlaps(places[i]!, places[j]!)).toBe(false);
    expect(atlases.atlases.length).toBeGreaterThan(1); // 60 blocks of up to 90 x 90 do not fit one 256 px atlas
  });

  it('gives a block larger than the shared size its own texture, freed with it', () => {
    const { regl, log } = fakeRegl();
    const atlases = new MaskAtlases(regl, 128);
    const small = atlases.add(10, 10, new Uint8Array(100));
    const big = atlases.add(300, 20, new Uint8Array(6000));
    expect(big.atlas.dedicated).toBe(true);
    expect([big.atlas.w, big.atlas.h]).toEqual([300, 20]);
    atlases.remove(big);
    expect(log.destroyed).toBe(1);
    expect(atlases.atlases).toEqual([small.atlas]);
  });

  it('clears the last shared atlas once it holds no mask, and removing twice is a no-op', () => {
    const { regl, log } = fakeRegl();
    const atlases = new MaskAtlases(regl, 64);
    const a = atlases.add(20, 20, new Uint8Array(400));
    const b = atlases.add(20, 20, new Uint8Array(400));
    atlases.remove(a);
    atlases.remove(a);
    expect(log.cleared).toBe(0); // b still lives there
    atlases.remove(b);
    expect(log.cleared).toBe(1);
    const c = atlases.add(30, 30, new Uint8Array(900));
    expect([c.u, c.v]).toEqual([0, 0]); // space reused from the start
    expect(atlases.atlases.length).toBe(1);
  });

  it('a mask larger than the GPU allows is kept at every k-th texel, its own texture within the limit', () => {
    const { regl, log } = fakeRegl();
    const atlases = new MaskAtlases(regl, 64, 100);
    // 250 rows x 120 columns, column-major, foreground in rows < 150 of columns >= 30; kept at
    // every 3rd texel (250 / 100 rounds up to 3).
    const tw = 250, th = 120;
    const data = new Uint8Array(tw * th);
    for (let c = 0; c < th; c++) for (let r = 0; r < tw; r++) data[c * tw + r] = r < 150 && c >= 30 ? 255 : 0;
    const p = atlases.add(tw, th, data);
    expect([p.tw, p.th]).toEqual([84, 40]);
    expect([p.atlas.w, p.atlas.h]).toEqual([84, 40]);
    const up = log.uploads[0]!;
    expect([up.w, up.h]).toEqual([84, 40]);
    // row 49 (original 147) is inside, row 50 (original 150) outside; column 9 (27) outside, 10 (30) inside
    const at = (r: number, c: number) => up.data[c * 84 + r];
    expect([at(49, 10), at(50, 10), at(49, 9), at(0, 39), at(83, 39)]).toEqual([255, 0, 0, 255, 0]);
  });

  it('subsample keeps the last partial row and column', () => {
    const d = Uint8Array.from({ length: 5 * 3 }, (_, i) => i);
    expect(subsample(5, 3, d, 2)).toEqual({ tw: 3, th: 2, data: Uint8Array.from([0, 2, 4, 10, 12, 14]) });
  });

  it('an edited mask reuses the block its old version left; a smaller one has the texels past it zeroed', () => {
    const { regl, log } = fakeRegl();
    const atlases = new MaskAtlases(regl, 256);
    const keep = atlases.add(40, 40, new Uint8Array(1600)); // keeps the atlas from emptying
    let m = atlases.add(100, 60, new Uint8Array(6000));
    // Edited a thousand times at about its size: the atlas never grows and no block overlaps.
    for (let i = 0; i < 1000; i++) {
      atlases.remove(m);
      const tw = 90 + (i % 11), th = 50 + (i % 11);
      m = atlases.add(tw, th, new Uint8Array(tw * th));
      expect(overlaps(m, keep)).toBe(false);
    }
    expect(atlases.atlases.length).toBe(1);
    expect(log.created).toBe(1);
    // A smaller mask in a reused 100 x 60 block: a zero column at u + tw, a zero row at v + th.
    atlases.remove(m);
    const fresh = atlases.add(100, 60, new Uint8Array(6000));
    atlases.remove(fresh);
    log.uploads.length = 0;
    const small = atlases.add(30, 20, new Uint8Array(600).fill(255));
    expect([small.u, small.v]).toEqual([fresh.u, fresh.v]);
    expect(log.uploads.map(({ x, y, w, h }) => [x - small.u, y - small.v, w, h])).toEqual([[0, 0, 30, 20], [30, 0, 1, 20], [0, 20, 31, 1]]);
    expect(log.uploads.slice(1).every((up) => up.data.every((b) => b === 0))).toBe(true);
    // Removed, it frees the whole block: a full-size mask fits there again.
    atlases.remove(small);
    expect([atlases.add(100, 60, new Uint8Array(6000)).u]).toEqual([fresh.u]);
  });
});
