// A work pool: at most `limit` tasks in flight, and the next item starts as soon as any one ends
// (fixed chunks would let one slow item hold every other slot of its chunk idle).

export interface PoolFailure {
  index: number;
  error: unknown;
}

/**
 * Runs `worker` over `items` in order with at most `limit` running at once. A rejected task is
 * recorded and the pool goes on; once `signal` aborts no new item starts (running ones finish
 * or honour the signal themselves). Resolves when every started task has settled, with the
 * failures and the number of items that never started.
 */
export async function runPool<T>(
  items: readonly T[],
  limit: number,
  worker: (item: T, index: number) => Promise<void>,
  signal?: AbortSignal,
): Promise<{ failures: PoolFailure[]; notStarted: number }> {
  const failures: PoolFailure[] = [];
  let next = 0;
  const lane = async () => {
    while (next < items.length && !signal?.aborted) {
      const index = next++;
      try {
        await worker(items[index]!, index);
      } catch (error) {
        failures.push({ index, error });
      }
    }
  };
  const lanes = Math.max(1, Math.min(Math.floor(limit), items.length));
  await Promise.all(Array.from({ length: lanes }, lane));
  return { failures, notStarted: items.length - next };
}
