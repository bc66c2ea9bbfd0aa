// The embedding cache: one computation per image for concurrent callers, the processing /
// processed / failed states, expiry after 24 h (failures after a minute), the size bound.
import { describe, expect, it } from 'vitest';
import { CACHE_TTL_MS, EmbeddingCache, FAILED_TTL_MS } from './cache';

const value = (bytes: number) => ({ bytes });

describe('EmbeddingCache', () => {
  it('shares one computation between concurrent requests and reports its states', async () => {
    const cache = new EmbeddingCache(1e9);
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const compute = async () => {
      calls++;
      await gate;
      return value(10);
    };
    const a = cache.get('img', compute), b = cache.get('img', compute);
    expect(cache.state('img')).toBe('processing');
    release();
    const [ra, rb] = await Promise.all([a, b]);
    expect(calls).toBe(1);
    expect([ra.fresh, rb.fresh]).toEqual([true, false]);
    expect(ra.value).toBe(rb.value);
    expect(cache.state('img')).toBe('processed');
    expect((await cache.get('img', compute)).fresh).toBe(false);
    expect(calls).toBe(1);
    cache.close();
  });

  it('remembers a failure for a minute, then tries again', async () => {
    let now = 1_000_000;
    const cache = new EmbeddingCache(1e9, () => now);
    let calls = 0;
    const failing = async () => {
      calls++;
      throw new Error('broken image');
    };
    await expect(cache.get('bad', failing)).rejects.toThrow('broken image');
    expect(cache.state('bad')).toBe('failed');
    await expect(cache.get('bad', failing)).rejects.toThrow('broken image');
    expect(calls).toBe(1);
    now += FAILED_TTL_MS + 1;
    await expect(cache.get('bad', failing)).rejects.toThrow('broken image');
    expect(calls).toBe(2);
    cache.close();
  });

  it('expires entries after 24 hours (on access and in the sweep)', async () => {
    let now = 0;
    const cache = new EmbeddingCache(1e9, () => now);
    let calls = 0;
    const compute = async () => value(++calls);
    await cache.get('a', compute);
    await cache.get('b', compute);
    now += CACHE_TTL_MS - 1;
    expect((await cache.get('a', compute)).fresh).toBe(false);
    now += 2;
    expect((await cache.get('a', compute)).fresh).toBe(true);
    cache.sweep();
    expect(cache.state('b')).toBeNull();
    expect(cache.size).toBe(1);
    cache.close();
  });

  it('keeps within its size bound, dropping the least recently used first', async () => {
    let now = 0;
    const cache = new EmbeddingCache(250, () => now);
    for (const key of ['a', 'b', 'c']) {
      now++;
      await cache.get(key, async () => value(100));
    }
    // 300 > 250: 'a', the least recently used, went.
    expect(cache.state('a')).toBeNull();
    expect(cache.bytes).toBe(200);
    now++;
    await cache.get('b', async () => value(100)); // touch b
    now++;
    await cache.get('d', async () => value(100));
    expect(cache.state('c')).toBeNull();
    expect(cache.state('b')).toBe('processed');
    expect(cache.state('d')).toBe('processed');
    cache.close();
  });

  it('hands every value it lets go to onDrop (evicted, deleted, expired, closed), and deleteValue spares a newer value', async () => {
    let now = 0;
    const dropped: number[] = [];
    const cache = new EmbeddingCache<{ bytes: number }>(250, () => now, (v) => void dropped.push(v.bytes));
    const a = (await cache.get('a', async () => value(100))).value;
    await cache.get('b', async () => value(101));
    now++;
    await cache.get('c', async () => value(102)); // over 250: a goes
    expect(dropped).toEqual([100]);
    cache.delete('b');
    expect(dropped).toEqual([100, 101]);
    // A stale handle of 'a' must not delete the value that replaced it.
    const fresh = (await cache.get('a', async () => value(103))).value;
    cache.deleteValue('a', a);
    expect(cache.state('a')).toBe('processed');
    cache.deleteValue('a', fresh);
    expect(cache.state('a')).toBeNull();
    expect(dropped).toEqual([100, 101, 103]);
    now += CACHE_TTL_MS + 1;
    cache.sweep();
    expect(dropped).toEqual([100, 101, 103, 102]);
    await cache.get('d', async () => value(104));
    cache.close();
    expect(dropped).toEqual([100, 101, 103, 102, 104]);
  });
});
