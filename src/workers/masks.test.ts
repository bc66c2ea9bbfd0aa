import { describe, expect, it } from 'vitest';
import type { Regl } from 'regl';
import { MaskAtlases, type MaskPlace } from './masks';

/** A stand-in for regl's texture API: records uploads and destroys. */
function fakeRegl() {
  const log = { created: 0, destroyed: 0, cleared: 0, uploads: [] as { x: number; y: number; w: number; h: number }[] };
  const regl = {
    texture(opts: { width: number; height: number }) {
      log.created++;
      const tex = Object.assign(() => { log.cleared++; return tex; }, {
        width: opts.width,
        height: opts.height,
        subimage(img: { width: number; height: number }, x: number, y: number) {
          if (x + img.width > opts.width || y + img.height > opts.height) throw new Error('subimage out of bounds');
          log.uploads.push({ x, y, w: img.width, h: img.height });
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
});
