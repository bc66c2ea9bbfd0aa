// Where a test run keeps its temporary files: the API servers' data directories (each a copy of
// the migrated PGlite template, 40 MB and growing), the e2e server's, Chromium's profiles. On the
// memory file system (/dev/shm) those writes cost a fraction of the CPU the disk's file system
// takes (copying the template: 0.1 s of CPU against 0.7 s on ext4, measured on the 2-core machine),
// so a run uses it when it is there with room to spare. VELLUM_TEST_TMPDIR names another place
// (VELLUM_TEST_TMPDIR=/tmp: the disk, as before).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const MEMORY_DIR = '/dev/shm';
/** Below this much free memory file system, a run writes to the disk instead. */
const MIN_FREE_BYTES = 4 * 1024 ** 3;
const RUN_PREFIX = 'vellum-run-';

/** The directory under which a run makes its own: VELLUM_TEST_TMPDIR, else /dev/shm with room, else the system's. */
export function testTempRoot(): string {
  if (process.env.VELLUM_TEST_TMPDIR) return process.env.VELLUM_TEST_TMPDIR;
  try {
    fs.accessSync(MEMORY_DIR, fs.constants.W_OK);
    const free = fs.statfsSync(MEMORY_DIR);
    if (free.bavail * free.bsize >= MIN_FREE_BYTES) return MEMORY_DIR;
  } catch {
    // No memory file system here.
  }
  return os.tmpdir();
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The process that made run directory `dir`, or null when it is not marked. */
function ownerOf(dir: string): number | null {
  try {
    return Number(fs.readFileSync(path.join(dir, 'owner.pid'), 'utf8'));
  } catch {
    return null;
  }
}

/**
 * Makes this run's directory under `testTempRoot()`, marked with the process that owns it. Run
 * directories left by runs that were killed (whose owner is gone) are removed first: in memory
 * they would hold the machine's RAM until it restarts.
 */
export function makeRunDir(): string {
  const root = testTempRoot();
  for (const name of fs.readdirSync(root)) {
    if (!name.startsWith(RUN_PREFIX)) continue;
    const dir = path.join(root, name);
    const owner = ownerOf(dir);
    // Not marked (made before this rule, or being made): left alone.
    if (owner !== null && !alive(owner)) fs.rmSync(dir, { recursive: true, force: true });
  }
  const dir = fs.mkdtempSync(path.join(root, RUN_PREFIX));
  fs.writeFileSync(path.join(dir, 'owner.pid'), String(process.pid));
  return dir;
}

/** True when `dir` is a run directory made by `makeRunDir` (a nested setup reuses it). */
export function isRunDir(dir: string): boolean {
  return path.basename(dir).startsWith(RUN_PREFIX) && fs.existsSync(path.join(dir, 'owner.pid'));
}
