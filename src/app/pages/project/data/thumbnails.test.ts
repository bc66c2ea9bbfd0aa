// The thumbnail URL cache and its batching (spec section 9): 300 entries at most with the oldest
// 10% evicted when full, a 2 h lifetime, the first 20 images at once and the rest in batches of 50.
import { beforeEach, describe, expect, it, vi } from 'vitest';

const calls: { ids: string[]; variant: string; at: number }[] = [];
vi.mock('../../../api/client', () => ({
  api: {
    batchSignedUrls: async (_org: string, ids: string[], variant: string) => {
      calls.push({ ids, variant, at: Date.now() });
      // The server leaves out ids it will not sign (here: any id ending in "x").
      const signed = Object.fromEntries(ids.filter((id) => !id.endsWith('x')).map((id) => [id, `https://s/${variant}/${id}`]));
      return { signed_urls: signed, expires_at: new Date(Date.now() + 24 * 3600_000).toISOString() };
    },
  },
}));

// The module reads window for its timers; in Node the global object stands in.
(globalThis as any).window ??= globalThis;
const { requestThumbnails, thumbKey, useThumbnails } = await import('./thumbnails');

const image = (id: string, thumb = true) => ({ id, gcs_uri: `gs://b/images/${id}.png`, thumbnail_path: thumb ? `thumbnails/${id}.png.webp` : null }) as any;

beforeEach(() => {
  calls.length = 0;
  useThumbnails.setState({ entries: {}, failed: {} });
});

describe('thumbnail cache', () => {
  it('keeps at most 300 entries, evicting the oldest 10% when full', () => {
    const t0 = Date.now();
    for (let i = 0; i < 300; i++) {
      vi.setSystemTime(t0 + i);
      useThumbnails.getState().put({ [`k${i}`]: `u${i}` }, t0 + 3600_000);
    }
    expect(Object.keys(useThumbnails.getState().entries)).toHaveLength(300);
    vi.setSystemTime(t0 + 1000);
    useThumbnails.getState().put({ new: 'u' }, t0 + 3600_000);
    const keys = Object.keys(useThumbnails.getState().entries);
    expect(keys).toHaveLength(300 + 1 - 31);
    expect(keys).toContain('new');
    expect(keys).not.toContain('k0');
    expect(keys).not.toContain('k30');
    expect(keys).toContain('k31');
    vi.useRealTimers();
  });

  it('never keeps a URL longer than 2 hours, even when the server signs it for longer', () => {
    const now = Date.now();
    useThumbnails.getState().put({ a: 'u' }, now + 24 * 3600_000);
    expect(useThumbnails.getState().entries.a!.expiresAt).toBeLessThanOrEqual(now + 2 * 3600_000 + 50);
  });

  it('signs the first 20 at once and the rest in batches of 50 after a pause; originals for images without a thumbnail', async () => {
    const images = Array.from({ length: 75 }, (_, i) => image(`i${i}`, i !== 3));
    await requestThumbnails('org', images);
    const thumbCalls = calls.filter((c) => c.variant === 'thumbnail');
    expect(thumbCalls.map((c) => c.ids.length)).toEqual([19, 50, 5]);
    expect(calls.filter((c) => c.variant === 'original').map((c) => c.ids)).toEqual([['i3']]);
    expect(thumbCalls[1]!.at - thumbCalls[0]!.at).toBeGreaterThanOrEqual(90);
    const entries = useThumbnails.getState().entries;
    expect(entries[thumbKey(images[0])]!.url).toBe('https://s/thumbnail/i0');
    expect(entries[thumbKey(images[3])]!.url).toBe('https://s/original/i3');
  });

  it('asks again only for what is neither cached nor refused', async () => {
    await requestThumbnails('org', [image('a'), image('bx')]);
    calls.length = 0;
    await requestThumbnails('org', [image('a'), image('bx'), image('c')]);
    expect(calls.map((c) => c.ids)).toEqual([['c']]);
  });
});
