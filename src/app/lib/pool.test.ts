import { describe, expect, it } from 'vitest';
import { runPool } from './pool';

/** A task the test settles by hand. */
function deferred() {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

function harness(n: number) {
  const tasks = Array.from({ length: n }, deferred);
  const started: number[] = [];
  const running = new Set<number>();
  let peak = 0;
  const worker = async (_: unknown, i: number) => {
    started.push(i);
    running.add(i);
    peak = Math.max(peak, running.size);
    try {
      await tasks[i]!.promise;
    } finally {
      running.delete(i);
    }
  };
  return { tasks, started, running, worker, peak: () => peak };
}

describe('runPool', () => {
  it('keeps at most 5 in flight and starts the next as soon as any one ends', async () => {
    const h = harness(12);
    const done = runPool(Array.from({ length: 12 }), 5, h.worker);
    await flush();
    expect(h.started).toEqual([0, 1, 2, 3, 4]);

    // The third finishing first frees one slot: item 5 starts while 0, 1, 3, 4 still run.
    h.tasks[2]!.resolve();
    await flush();
    expect(h.started).toEqual([0, 1, 2, 3, 4, 5]);
    expect([...h.running].sort((a, b) => a - b)).toEqual([0, 1, 3, 4, 5]);

    for (let i = 0; i < 12; i++) {
      h.tasks[i]!.resolve();
      await flush();
    }
    const result = await done;
    expect(h.started).toEqual(Array.from({ length: 12 }, (_, i) => i));
    expect(h.peak()).toBe(5);
    expect(result).toEqual({ failures: [], notStarted: 0 });
  });

  it('one failure does not stop the rest', async () => {
    const h = harness(8);
    const done = runPool(Array.from({ length: 8 }), 5, h.worker);
    await flush();
    const boom = new Error('boom');
    h.tasks[0]!.reject(boom);
    await flush();
    expect(h.started).toContain(5);
    for (let i = 1; i < 8; i++) {
      h.tasks[i]!.resolve();
      await flush();
    }
    const result = await done;
    expect(h.started).toHaveLength(8);
    expect(result.failures).toEqual([{ index: 0, error: boom }]);
  });

  it('starts nothing new once the signal aborts', async () => {
    const h = harness(9);
    const controller = new AbortController();
    const done = runPool(Array.from({ length: 9 }), 5, h.worker, controller.signal);
    await flush();
    controller.abort();
    for (let i = 0; i < 5; i++) h.tasks[i]!.resolve();
    const result = await done;
    expect(h.started).toEqual([0, 1, 2, 3, 4]);
    expect(result.notStarted).toBe(4);
  });

  it('runs fewer items than the limit, and none', async () => {
    const seen: number[] = [];
    await runPool([10, 20], 5, async (v) => void seen.push(v));
    expect(seen).toEqual([10, 20]);
    expect(await runPool([], 5, async () => {})).toEqual({ failures: [], notStarted: 0 });
  });
});
