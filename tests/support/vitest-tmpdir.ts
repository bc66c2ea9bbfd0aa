// Vitest global setup: each run gets a temporary directory of its own (TMPDIR, which the test
// workers inherit), removed when the run ends. The API tests' servers each make a data directory
// in it (a copy of the migrated PGlite template), and Chromium and spawned servers their files:
// left in the system's one, they filled the disk of a machine running suites all day. The
// directory is in memory when it can be (`test-tmp.ts`): a run's writes then cost far less CPU.
import fs from 'node:fs';
import os from 'node:os';
import { isRunDir, makeRunDir } from './test-tmp';

export default function setup(): () => void {
  // Each vitest project runs this setup; the first one's directory serves the whole run.
  if (isRunDir(os.tmpdir())) return () => {};
  const previous = process.env.TMPDIR;
  const runDir = makeRunDir();
  process.env.TMPDIR = runDir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    // A server's background job (a tile pyramid) may still be writing into it as the run ends:
    // rmdir then meets a file made after the listing (ENOTEMPTY, seen once), which vitest reported
    // as an error of the run. Retried; a directory still left is removed by the next run
    // (test-tmp.ts removes those whose process is gone).
    try {
      fs.rmSync(runDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    } catch (err) {
      console.warn(`could not remove ${runDir} (the next run will): ${(err as Error).message}`);
    }
  };
}
