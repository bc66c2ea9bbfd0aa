// A per-process lock by key: register, delete and the orphan sweep never work on one filename at once.

const locks = new Map<string, Promise<unknown>>();

export async function withKeyLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const previous = locks.get(key) ?? Promise.resolve();
  const run = previous.then(fn, fn);
  const tail = run.catch(() => undefined);
  locks.set(key, tail);
  try {
    return await run;
  } finally {
    if (locks.get(key) === tail) locks.delete(key);
  }
}

/** The lock key of a filename in a project (filenames are unique case-insensitively). */
export const filenameLockKey = (projectId: string, filename: string) => `${projectId}/${filename.toLowerCase()}`;
