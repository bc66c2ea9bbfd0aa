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
    fs.rmSync(runDir, { recursive: true, force: true });
  };
}
