// Vitest global setup: each run gets a temporary directory of its own (TMPDIR, which the test
// workers inherit), removed when the run ends. The API tests' servers each leave a data directory
// in it (a copy of the migrated PGlite template, up to 230 MB), and Chromium and spawned servers
// their files: left in the system's one, they filled the disk of a machine running suites all day.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export default function setup(): () => void {
  const previous = process.env.TMPDIR;
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vellum-run-'));
  process.env.TMPDIR = runDir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    fs.rmSync(runDir, { recursive: true, force: true });
  };
}
