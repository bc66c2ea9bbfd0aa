// What lets an import be stopped hard (kill -9) and picked up again (issue 30, finding 6).
//
// - Temporary files live under DATA_DIR/tmp/imports/<import id>: a resumed run clears its own
//   directory before it starts, and each process sweeps, when its import workers start and then
//   hourly, the directories of imports that are no longer queued or running (or no longer exist).
//   The directory of an import another process is running is never touched.
// - Names: an image is created under a name check-filename reserved for the import's user. A run
//   that died between the reservation and the image left that reservation behind; check-filename
//   counts every reservation, its caller's too, so the resumed run would get `k6_1.png` and the
//   label files made for `k6.png` would no longer match. A resumed run reuses the reservation the
//   import made for that name instead.
import fsp from 'node:fs/promises';
import path from 'node:path';
import { and, eq, gt, gte, inArray, isNull } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { imports, uploadReservations } from '../../db/schema';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function importTmpRoot(ctx: AppContext): string {
  return path.join(ctx.config.dataDir, 'tmp', 'imports');
}

/** The import's own temporary directory, emptied (what a run that died left there is dropped). */
export async function freshTmpDir(ctx: AppContext, importId: string): Promise<string> {
  const dir = path.join(importTmpRoot(ctx), importId);
  await fsp.rm(dir, { recursive: true, force: true });
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** Removes the import's temporary directory (an import that has ended). */
export async function dropTmpDir(ctx: AppContext, importId: string): Promise<void> {
  await fsp.rm(path.join(importTmpRoot(ctx), importId), { recursive: true, force: true });
}

/** Removes the temporary directories of imports that are not queued or running. Returns how many. */
export async function sweepImportTmp(ctx: AppContext): Promise<number> {
  const root = importTmpRoot(ctx);
  const names = await fsp.readdir(root).catch(() => [] as string[]);
  const ids = names.filter((n) => UUID_RE.test(n));
  const live = new Set<string>();
  if (ids.length > 0) {
    const rows = await ctx.db.select({ id: imports.id }).from(imports).where(and(inArray(imports.id, ids), inArray(imports.status, ['queued', 'running'])));
    for (const r of rows) live.add(r.id);
  }
  let removed = 0;
  for (const name of names) {
    if (live.has(name)) continue;
    await fsp.rm(path.join(root, name), { recursive: true, force: true });
    removed += 1;
  }
  return removed;
}

/** `name`, or `name` with check-filename's `_<n>` suffix (case ignored). */
function isVariantOf(candidate: string, name: string): number | null {
  const c = candidate.toLowerCase();
  const n = name.toLowerCase();
  if (c === n) return 0;
  const dot = n.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [n.slice(0, dot), n.slice(dot)] : [n, ''];
  if (!c.startsWith(`${stem}_`) || !c.endsWith(ext)) return null;
  const middle = c.slice(stem.length + 1, c.length - ext.length);
  return /^[1-9]\d*$/.test(middle) ? Number(middle) : null;
}

/**
 * The name a run of this import that died reserved for `name` (check-filename's hold for the
 * import's user since the import was created, live, for `name` or one of its `_<n>` variants), or
 * null. The lowest variant wins: the one the first run was handed.
 */
export async function ownReservation(ctx: AppContext, row: { projectId: string; createdBy: string | null; createdAt: Date }, userId: string, name: string): Promise<string | null> {
  const held = await ctx.db
    .select({ filename: uploadReservations.filename })
    .from(uploadReservations)
    .where(
      and(
        eq(uploadReservations.projectId, row.projectId),
        eq(uploadReservations.reservedBy, userId),
        isNull(uploadReservations.stagingKey),
        gt(uploadReservations.expiresAt, new Date()),
        gte(uploadReservations.createdAt, row.createdAt),
      ),
    );
  let best: { name: string; n: number } | null = null;
  for (const h of held) {
    const n = isVariantOf(h.filename, name);
    if (n !== null && (!best || n < best.n)) best = { name: h.filename, n };
  }
  return best?.name ?? null;
}
