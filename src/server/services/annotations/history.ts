// The change log read back (issue 14): the net change since a version (for a client catching
// up, and the 409 of a stale save), the list of versions with who saved them, the annotations of
// an earlier version (rebuilt from the current rows by undoing later versions with the values
// they replaced), and the retention sweep.
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import type { ChangesResponse, HistoryEntry, HistoryResponse } from '../../../contract/annotation-api';
import { allTexts, rowsOf, type Conn } from './store';

type Annotation = Record<string, unknown>;

interface LogRow {
  version: number;
  upserts: string;
  removed_ids: string;
  before: string;
}

/** Log rows after `since` up to `version`, oldest first; null when the log no longer holds all of them. */
async function logAfter(db: Conn, imageId: string, since: number, version: number, withBefore: boolean): Promise<LogRow[] | null> {
  if (since >= version) return [];
  const rows = await rowsOf<LogRow>(
    db,
    withBefore
      ? sql`SELECT version, upserts::text AS upserts, removed_ids::text AS removed_ids, before::text AS before FROM annotation_changes WHERE image_id = ${imageId} AND version > ${since} AND version <= ${version} ORDER BY version`
      : sql`SELECT version, upserts::text AS upserts, removed_ids::text AS removed_ids, '[]' AS before FROM annotation_changes WHERE image_id = ${imageId} AND version > ${since} AND version <= ${version} ORDER BY version`,
  );
  return rows.length === version - since && rows[0]?.version === since + 1 ? rows : null;
}

/** The net change from `since` to `version` (the header's), or null when the log does not reach back to `since`. */
export async function changesSince(db: Conn, imageId: string, since: number, head: { version: number; savedAt: string | null }): Promise<ChangesResponse | null> {
  const rows = await logAfter(db, imageId, since, head.version, false);
  if (!rows) return null;
  // An id removed and added again stays in `removed` too: applied removals first, it goes on top, as on the server.
  const upserts = new Map<string, Annotation>();
  const removed = new Set<string>();
  for (const r of rows) {
    for (const id of JSON.parse(r.removed_ids) as string[]) {
      upserts.delete(id);
      removed.add(id);
    }
    for (const a of JSON.parse(r.upserts) as Annotation[]) upserts.set(a.id as string, a);
  }
  return { since, version: head.version, saved_at: head.savedAt, upserts: [...upserts.values()], removed_ids: [...removed] };
}

/** One logged version as the live hub relays it (src/server/live): the json texts as stored. */
export interface LoggedVersion {
  version: number;
  userId: string | null;
  upserts: string;
  removedIds: string;
  /** When it was saved (ISO 8601, server clock): a client weighs it against its own unsaved edits (the later edit wins). */
  savedAt: string;
}

/** The logged versions after `since` up to `upTo`, oldest first (those the log still holds). */
export async function versionsAfter(db: Conn, imageId: string, since: number, upTo: number): Promise<LoggedVersion[]> {
  if (upTo <= since) return [];
  const rows = await rowsOf<{ version: number; user_id: string | null; upserts: string; removed_ids: string; created_at: string | Date }>(
    db,
    sql`SELECT version, user_id, upserts::text AS upserts, removed_ids::text AS removed_ids, created_at FROM annotation_changes WHERE image_id = ${imageId} AND version > ${since} AND version <= ${upTo} ORDER BY version`,
  );
  return rows.map((r) => ({ version: r.version, userId: r.user_id, upserts: r.upserts, removedIds: r.removed_ids, savedAt: new Date(r.created_at).toISOString() }));
}

/**
 * The annotations as they were at `version`, in paint order (shapes put back by the undo go on
 * top), or null when the log no longer reaches back to it.
 */
export async function annotationsAt(db: Conn, imageId: string, version: number, current: number): Promise<Annotation[] | null> {
  const rows = await logAfter(db, imageId, version, current, true);
  if (!rows) return null;
  const state = new Map<string, string | Annotation>();
  for (const r of await allTexts(db, imageId)) state.set(r.id, r.text);
  for (const r of rows.reverse()) {
    const before = new Map((JSON.parse(r.before) as Annotation[]).map((a) => [a.id as string, a]));
    for (const a of JSON.parse(r.upserts) as Annotation[]) {
      const id = a.id as string;
      const old = before.get(id);
      if (old) state.set(id, old);
      else state.delete(id);
    }
    for (const id of JSON.parse(r.removed_ids) as string[]) {
      const old = before.get(id);
      if (old) state.set(id, old);
    }
  }
  return [...state.values()].map((v) => (typeof v === 'string' ? (JSON.parse(v) as Annotation) : v));
}

/** Versions newest first, with who saved them; `oldest_version` is the earliest whose annotations can still be rebuilt. */
export async function historyOf(db: Conn, imageId: string, current: number, opts: { before?: number; limit: number }): Promise<HistoryResponse> {
  const before = opts.before ?? current + 1;
  const rows = await rowsOf<{ version: number; created_at: string | Date; user_id: string | null; user_name: string | null; added: number; changed: number; removed: number; restored_from: number | null; merged: boolean }>(
    db,
    sql`SELECT c.version, c.created_at, c.user_id, coalesce(nullif(p.full_name, ''), p.email) AS user_name, c.added, c.changed, c.removed, c.restored_from, c.merged
        FROM annotation_changes c LEFT JOIN profiles p ON p.id = c.user_id
        WHERE c.image_id = ${imageId} AND c.version < ${before}
        ORDER BY c.version DESC LIMIT ${opts.limit}`,
  );
  const [oldest] = await rowsOf<{ v: number | null; n: number | string }>(db, sql`SELECT min(version) AS v, count(*) AS n FROM annotation_changes WHERE image_id = ${imageId}`);
  // The log is contiguous up to the current version when nothing in between was swept.
  const first = oldest?.v ?? null;
  const contiguous = first !== null && Number(oldest!.n) === current - first + 1;
  const entries: HistoryEntry[] = rows.map((r) => ({
    version: r.version,
    saved_at: new Date(r.created_at).toISOString(),
    user_id: r.user_id,
    user_name: r.user_name,
    added: r.added,
    changed: r.changed,
    removed: r.removed,
    restored_from: r.restored_from,
    ...(r.merged && { merged: true as const }),
  }));
  return { version: current, oldest_version: contiguous ? first! - 1 : current, entries };
}

/** Deletes log rows older than the configured retention (by ctx.now); returns how many. */
export async function sweepHistory(ctx: AppContext): Promise<number> {
  const days = ctx.config.annotationHistoryDays;
  if (days <= 0) return 0;
  const cutoff = new Date((ctx.now?.() ?? new Date()).getTime() - days * 86_400_000);
  const rows = await rowsOf<{ n: number | string }>(
    ctx.db,
    sql`WITH gone AS (DELETE FROM annotation_changes WHERE created_at < ${cutoff.toISOString()} RETURNING 1) SELECT count(*) AS n FROM gone`,
  );
  return Number(rows[0]?.n ?? 0);
}

/** Runs the sweep hourly (first a minute after start); the timers never keep the process alive. Returns a stop function. */
export function startHistorySweep(ctx: AppContext): () => void {
  const run = () => void sweepHistory(ctx).catch((err: unknown) => ctx.log.warn({ err }, 'annotation history sweep failed; it runs again later'));
  const first = setTimeout(run, 60_000);
  const every = setInterval(run, 3_600_000);
  first.unref();
  every.unref();
  return () => {
    clearTimeout(first);
    clearInterval(every);
  };
}
