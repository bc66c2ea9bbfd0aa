// What a database error means, by its SQLSTATE: the same codes from PGlite and PostgreSQL, on the
// driver's error or on the `cause` of drizzle's DrizzleQueryError that wraps it.

/** The SQLSTATE of `err` or of an error in its `cause` chain; undefined when none carries one. */
export function sqlState(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

/** A unique constraint refused the row (23505). */
export function isUniqueViolation(err: unknown): boolean {
  return sqlState(err) === '23505';
}

/**
 * A parameter held text the database cannot take: a NUL character in text (22021) or a \u0000
 * escape in json (22P05). The contract refuses such text where it is stored (src/contract/text.ts);
 * this is the net for a parameter that no rule caught (a name only looked up), so that it answers
 * 400 instead of 500.
 */
export function isUnstorableTextError(err: unknown): boolean {
  const state = sqlState(err);
  return state === '22021' || state === '22P05';
}

/**
 * PostgreSQL chose this transaction to end a deadlock (40P01), or could not serialize it (40001):
 * it was rolled back whole, and running it again is what the server is expected to do. Two saves
 * and moves of one project at once can meet so, each touching the trigger-kept counts
 * (image_class_stats, image_folder_stats) in its own order (tests/api/team-chaos.test.ts).
 */
export function isRetryableConflict(err: unknown): boolean {
  const state = sqlState(err);
  return state === '40P01' || state === '40001';
}

/**
 * Runs `work` (a whole transaction, or one statement outside one), again when the database rolled
 * it back as a deadlock's victim: up to `attempts` times in all, after a short random pause so the
 * other side finishes first. `work` must do nothing outside the database before it commits.
 */
export async function retryOnConflict<T>(work: () => Promise<T>, attempts = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (attempt >= attempts || !isRetryableConflict(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * attempt));
    }
  }
}
