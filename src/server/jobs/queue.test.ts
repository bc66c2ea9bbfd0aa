// The claim loop's wake-ups with a database of the test's own, which answers each claim when the
// test says: a poke can land after the loop's last look at its `again` flag and before the loop has
// ended, and must make it look again rather than leave the job to the next poll (1 s by default; a
// minute would have lost a test its job). The poke is placed at every microtask from the claim's
// answer on: without the loop's second look, offset 2 loses it.
import { describe, expect, it } from 'vitest';
import type { AppContext } from '../context';
import { createJobQueue } from './queue';

const nothing = { rows: [{ id: null, due_in_ms: null }] };

describe('a poke as a look ends', () => {
  it('is never lost, whichever microtask it lands in', async () => {
    const lost: number[] = [];
    for (let d = 0; d < 30; d++) {
      const answers: (() => void)[] = [];
      let ending = false;
      const execute = () => new Promise((resolve) => (ending ? resolve(nothing) : answers.push(() => resolve(nothing))));
      const ctx = { db: { execute }, log: { warn: () => undefined } } as unknown as AppContext;
      const q = createJobQueue(ctx, { kind: 'fake', concurrency: 1, pollMs: 60_000, leaseMs: 5000, maxAttempts: 3, run: async () => undefined, giveUp: async () => undefined });
      q.start(); // the first look: its claim waits for an answer
      expect(answers).toHaveLength(1);
      answers.shift()!(); // nothing to claim
      for (let k = 0; k < d; k++) await null;
      q.poke(); // a job this process queued meanwhile
      for (let k = 0; k < 50; k++) await null;
      if (answers.length === 0) lost.push(d);
      ending = true;
      for (const answer of answers.splice(0)) answer();
      await q.stop();
    }
    expect(lost).toEqual([]);
  });
});
