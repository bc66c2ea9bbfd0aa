// One migrated PGlite database per schema, copied for every test server (the API tests' and the
// e2e suite's): creating a database (initdb) and running the migrations costs a server about 9 s
// of CPU, a copy about 0.1 s. The template is kept under node_modules/.cache, so it outlives a
// run: `npm test`'s vitest stage makes it and its e2e stage starts from it, and the next run finds
// it there. It is keyed by the migrations' text and the PGlite version: a new migration makes a
// new one (templates unused for a day are then removed).
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../../src/server/db/client';
import { migrationFiles } from '../../src/server/db/migrate';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cacheDir = path.join(root, 'node_modules/.cache/vellum');
const PREFIX = 'pglite-template-';
const BUILDING = 'building-';
const UNUSED_MS = 24 * 3600_000;

/**
 * The test servers' PGlite buffer pool in MB, as PGLITE_SHARED_BUFFERS_MB: a start zeroes the
 * pool, about 0.5 s of CPU at PGlite's default 128 MB (tests/README.md, session 35). The variable
 * in the test run's environment overrides it, to compare.
 */
export const TEST_SHARED_BUFFERS_MB = process.env.PGLITE_SHARED_BUFFERS_MB ?? '16';

/** What a migrated database depends on: the migrations' text and the PGlite version. */
export function schemaKey(): string {
  const hash = createHash('sha256');
  const dir = path.join(root, 'src/server/db/migrations');
  for (const file of migrationFiles()) hash.update(file).update(fs.readFileSync(path.join(dir, file)));
  hash.update(fs.readFileSync(path.join(root, 'node_modules/@electric-sql/pglite/package.json')));
  return hash.digest('hex').slice(0, 16);
}

/** Removes the templates of other schemas that no run has used for a day, and builds a killed process left. */
function removeUnused(keep: string) {
  for (const name of fs.readdirSync(cacheDir)) {
    const dir = path.join(cacheDir, name);
    if (dir === keep || !(name.startsWith(PREFIX) || name.startsWith(BUILDING))) continue;
    try {
      const ready = path.join(dir, 'ready');
      const usedAt = fs.statSync(fs.existsSync(ready) ? ready : dir).mtimeMs;
      if (Date.now() - usedAt > UNUSED_MS) fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // Removed meanwhile by another process.
    }
  }
}

/**
 * The migrated PGlite data directory of the current schema, made when missing. Several processes
 * may ask at once (vitest's workers): each builds in a directory of its own and renames it into
 * place, so a reader never sees half a template.
 */
export async function pgliteTemplate(): Promise<string> {
  const final = path.join(cacheDir, `${PREFIX}${schemaKey()}`);
  const ready = path.join(final, 'ready');
  if (fs.existsSync(ready)) {
    const now = new Date();
    fs.utimesSync(ready, now, now);
    return path.join(final, 'db');
  }
  fs.mkdirSync(cacheDir, { recursive: true });
  const building = fs.mkdtempSync(path.join(cacheDir, BUILDING));
  const database = await openDatabase({ kind: 'pglite', dir: path.join(building, 'db'), sharedBuffersMb: Number(TEST_SHARED_BUFFERS_MB) });
  await database.close();
  fs.writeFileSync(path.join(building, 'ready'), '');
  try {
    fs.renameSync(building, final);
  } catch {
    // Another process finished first: its copy is the same.
    fs.rmSync(building, { recursive: true, force: true });
  }
  removeUnused(final);
  return path.join(final, 'db');
}

/** Makes `dbDir` (a server's `DATA_DIR/db`, not there yet) a copy of the migrated template. */
export async function copyMigratedDatabase(dbDir: string): Promise<void> {
  fs.cpSync(await pgliteTemplate(), dbDir, { recursive: true });
}
