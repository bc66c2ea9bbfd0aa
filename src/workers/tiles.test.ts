// The tiled image layer without GL: which tile textures a frame draws over which part of the
// image, and when arrived tiles become textures and ask for a frame.
import type { Regl } from 'regl';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ImageLayer, openSource, type ImageQuad, type TileSource } from './tiles';
import { renewDelay } from './render-client';

interface FakeTexture { id: string; destroyed: boolean; destroy(): void }

/** A regl stand-in whose textures are named after the tile (pixels) they were made from. */
function fakeRegl(made: FakeTexture[]): Regl {
  return {
    texture: (o: { data: { name: string } }) => {
      const t: FakeTexture = { id: o.data.name, destroyed: false, destroy() { this.destroyed = true; } };
      made.push(t);
      return t;
    },
  } as unknown as Regl;
}

/** An 8192 px square source whose region() calls wait until the test resolves them. */
function slowSource() {
  const waiting = new Map<string, (px: unknown) => void>();
  const source: TileSource = {
    width: 8192,
    height: 8192,
    region(sx, sy, sw) {
      const name = `${Math.log2(sw / 512)}/${sx / sw}/${sy / sw}`; // level/tx/ty
      return new Promise((resolve) => waiting.set(name, resolve as (px: unknown) => void));
    },
    close() {},
  };
  const arrive = async (...names: string[]) => {
    for (const n of names) {
      const resolve = waiting.get(n);
      if (!resolve) throw new Error(`tile ${n} was not requested (requested: ${[...waiting.keys()].join(', ')})`);
      waiting.delete(n);
      resolve({ name: n, close() {} });
    }
    await Promise.resolve();
    await Promise.resolve();
  };
  return { source, waiting, arrive };
}

// 800 x 600 view at scale 1/4: level 2 (tiles of 2048 image px), 2 x 2 of them in view
const cam = { x: 0, y: 0, scale: 0.25 };
const view = (layer: ImageLayer): ImageQuad[] => layer.visible(cam, 800, 600, 1);
const drawn = (qs: ImageQuad[]) => qs.map((q) => `${(q.tex as unknown as FakeTexture).id} ${q.rect.join(',')} uv ${q.uv.join(',')}`);

describe('tiled image layer', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] }));
  afterEach(() => vi.useRealTimers());

  it('draws each cell of the wanted level once, from the coarser overview until its own tile is in', async () => {
    const made: FakeTexture[] = [];
    const { source, waiting, arrive } = slowSource();
    let frames = 0;
    const layer = new ImageLayer(fakeRegl(made), source, 4096, 512, 160, () => frames++);
    expect(layer.mode).toBe('tiled');
    expect(view(layer)).toEqual([]);
    // the overview (level 4) first, then the level's tiles, four loads at a time
    expect([...waiting.keys()]).toEqual(['4/0/0', '2/0/0', '2/1/0', '2/0/1']);
    expect(layer.pending).toBe(5);

    await arrive('4/0/0');
    vi.advanceTimersByTime(10);
    expect(made.map((t) => t.id)).toEqual(['4/0/0']);
    // four quads, each a quarter of the overview texture over its own cell
    expect(drawn(view(layer))).toEqual([
      '4/0/0 0,0,2048,2048 uv 0,0,0.25,0.25',
      '4/0/0 2048,0,2048,2048 uv 0.25,0,0.25,0.25',
      '4/0/0 0,2048,2048,2048 uv 0,0.25,0.25,0.25',
      '4/0/0 2048,2048,2048,2048 uv 0.25,0.25,0.25,0.25',
    ]);

    await arrive('2/0/0', '2/1/0');
    vi.advanceTimersByTime(20);
    expect(made).toHaveLength(3);
    expect(drawn(view(layer))).toEqual([
      '2/0/0 0,0,2048,2048 uv 0,0,1,1',
      '2/1/0 2048,0,2048,2048 uv 0,0,1,1',
      '4/0/0 0,2048,2048,2048 uv 0,0.25,0.25,0.25',
      '4/0/0 2048,2048,2048,2048 uv 0.25,0.25,0.25,0.25',
    ]);
    expect(frames).toBe(0); // tiles still loading, and less than SHOW_EVERY_MS since the last frame
    await arrive('2/0/1', '2/1/1');
    vi.advanceTimersByTime(20);
    expect(layer.pending).toBe(0);
    expect(frames).toBe(1); // one frame once all are in
    expect(drawn(view(layer)).every((d) => d.startsWith('2/') && d.endsWith('uv 0,0,1,1'))).toBe(true);
  });

  it('makes arrived tiles into textures one per task, outside the frame', async () => {
    const made: FakeTexture[] = [];
    const { source, arrive } = slowSource();
    const layer = new ImageLayer(fakeRegl(made), source, 4096, 512, 160, () => undefined);
    view(layer);
    await arrive('4/0/0', '2/0/0', '2/1/0', '2/0/1');
    expect(made).toHaveLength(0);
    view(layer); // a frame does not make them
    expect(made).toHaveLength(0);
    vi.advanceTimersByTime(6);
    expect(made).toHaveLength(1);
    vi.advanceTimersByTime(6);
    expect(made).toHaveLength(2);
    vi.advanceTimersByTime(30);
    expect(made).toHaveLength(4);
  });

  it('shows tiles every 100 ms while they keep arriving', async () => {
    const { source, arrive } = slowSource();
    let frames = 0;
    const layer = new ImageLayer(fakeRegl([]), source, 4096, 512, 160, () => frames++);
    view(layer);
    vi.advanceTimersByTime(150); // a slow network: nothing yet
    await arrive('4/0/0');
    vi.advanceTimersByTime(10);
    expect(frames).toBe(1); // more is loading, but the last frame was over 100 ms ago
  });
});

describe('tile pyramid URLs', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('fetches tiles from the URLs renewed after they were signed again (they expire within the hour)', async () => {
    const fetched: string[] = [];
    vi.stubGlobal('fetch', async (url: string) => {
      fetched.push(url);
      return { ok: !url.includes('old'), status: url.includes('old') ? 403 : 200, blob: async () => new Blob([url]) };
    });
    vi.stubGlobal('createImageBitmap', async (b: Blob) => ({ name: await b.text(), close() {} }));
    const source = (await openSource({ kind: 'tiles', width: 1024, height: 1024, tileSize: 512, levels: [{ level: 0, cols: 2, rows: 2, urls: ['old/0', 'old/1', 'old/2', 'old/3'] }, { level: 1, cols: 1, rows: 1, urls: ['old/top'] }] }))!;
    await expect(source.pyramid!.tile(0, 1, 0)).rejects.toThrow('HTTP 403');
    source.renew!([{ level: 0, cols: 2, rows: 2, urls: ['new/0', 'new/1', 'new/2', 'new/3'] }, { level: 1, cols: 1, rows: 1, urls: ['new/top'] }]);
    expect(await source.pyramid!.tile(0, 1, 0)).toMatchObject({ name: 'new/1' });
    expect(await source.pyramid!.tile(1, 0, 0)).toMatchObject({ name: 'new/top' });
    expect(fetched).toEqual(['old/1', 'new/1', 'new/top']);
  });

  it('renews five minutes before the URLs expire, never sooner than 30 s from now', () => {
    const now = Date.parse('2026-11-26T10:00:00Z');
    expect(renewDelay('2026-11-26T11:00:00Z', now)).toBe(55 * 60_000);
    expect(renewDelay('2026-11-26T10:03:00Z', now)).toBe(30_000);
    expect(renewDelay('not a date', now)).toBe(30_000);
  });
});
