import { describe, expect, it } from 'vitest';
import { progressWriter } from './progress';

/** A store whose writes take as long as the test says: each write waits for its own release. */
function slowStore() {
  const committed: number[] = [];
  const pending: { value: number; release: () => void }[] = [];
  let concurrent = 0;
  let maxConcurrent = 0;
  const write = (value: number) => async () => {
    concurrent += 1;
    maxConcurrent = Math.max(maxConcurrent, concurrent);
    await new Promise<void>((release) => pending.push({ value, release }));
    committed.push(value);
    concurrent -= 1;
  };
  const releaseNext = async () => {
    pending.shift()!.release();
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { committed, pending, write, releaseNext, maxConcurrent: () => maxConcurrent };
}

describe('progressWriter', () => {
  it('writes one at a time, in order, and only the newest of the states asked for meanwhile', async () => {
    const store = slowStore();
    const progress = progressWriter();
    let done = 0;
    const asks: Promise<void>[] = [];
    // Image 1 finishes: its write starts at once. Images 2, 3 and 4 finish while it is in flight.
    done = 1;
    asks.push(progress.save(() => store.write(done)()));
    for (const d of [2, 3, 4]) {
      done = d;
      asks.push(progress.save(() => store.write(done)()));
    }
    expect(store.pending.map((p) => p.value)).toEqual([1]);
    await store.releaseNext();
    // The next write carries the state as it is when it starts: done 4, not 2.
    expect(store.pending.map((p) => p.value)).toEqual([4]);
    await store.releaseNext();
    await Promise.all(asks);
    expect(store.committed).toEqual([1, 4]);
    expect(store.maxConcurrent()).toBe(1);
  });

  it('a save asked for after the writes ended starts a new write; a failed write rejects its callers', async () => {
    const progress = progressWriter();
    const written: number[] = [];
    await progress.save(async () => void written.push(1));
    await progress.save(async () => void written.push(2));
    expect(written).toEqual([1, 2]);
    await expect(progress.save(async () => Promise.reject(new Error('database gone')))).rejects.toThrow('database gone');
    await progress.save(async () => void written.push(3));
    expect(written).toEqual([1, 2, 3]);
  });
});
