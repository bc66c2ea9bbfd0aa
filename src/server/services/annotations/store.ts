// The row store of annotations (0006_annotation_rows.sql): one row per annotation keyed by
// (image_id, id), a version header per image (annotation_documents) and a change log
// (annotation_changes). Every write path ends in applyChange(), which touches only the rows of the
// ids it is given, so a one-shape save costs the same on a 1k- or a 100k-shape image.
//
// Statements pass lists as one json parameter (json_to_recordset / json_array_elements_text):
// one round trip for a 1,000-shape move, and the same SQL on PGlite and node-postgres.
import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { ANNOTATION_KINDS } from '../../../contract/annotation-api';
import { sameJson } from '../../../contract/json';

/** The transaction or database a statement runs on. */
export type Conn = Pick<Db, 'execute'>;

export async function rowsOf<T>(db: Conn, query: SQL): Promise<T[]> {
  return ((await db.execute(query)) as unknown as { rows: T[] }).rows;
}

/** The version header as clients see it (version 0 and no saved_at while nothing was ever saved). */
export async function headOf(db: Conn, imageId: string): Promise<{ version: number; savedAt: string | null }> {
  const [h] = await rowsOf<{ version: number; updated_at: string | Date }>(db, sql`SELECT version, updated_at FROM annotation_documents WHERE image_id = ${imageId}`);
  const version = h?.version ?? 0;
  // The upload writes an empty version 0; only a save gives the annotations a saved_at.
  return { version, savedAt: version > 0 && h ? new Date(h.updated_at).toISOString() : null };
}

/** Runs `read` on one snapshot of the database (its statements see the same committed state), without locking anything. */
export function onSnapshot<T>(db: Db, read: (tx: Conn) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`);
    return read(tx);
  });
}

/**
 * The channel every committed version is announced on, `<image id>:<version>`, by NOTIFY inside
 * the version's transaction (so only committed versions are announced, in commit order): the
 * live hub of each server process listens (src/server/live).
 */
export const CHANGES_CHANNEL = 'vellum_annotation_changes';

export type AnnotationKind = (typeof ANNOTATION_KINDS)[number];

/** The stored-annotation rule: one shape key beside the bounding box, none for a box. */
export function kindOf(a: Record<string, unknown>): AnnotationKind {
  if (a.polygon != null) return 'polygon';
  if (a.polyline != null) return 'polyline';
  if (a.keypoint != null) return 'keypoint';
  if (a.segmentation != null) return 'segmentation';
  if (a.points != null) return 'skeleton';
  return 'box';
}

export interface Header {
  version: number;
  nextSeq: number;
  updatedAt: Date;
}

/**
 * Locks the image's version header for this transaction (made at version 0 when the image has
 * none yet). Callers lock the image row first, so saves of one image queue there.
 */
export async function lockHeader(tx: Conn, imageId: string, projectId: string): Promise<Header> {
  await tx.execute(sql`INSERT INTO annotation_documents (image_id, project_id, version) VALUES (${imageId}, ${projectId}, 0) ON CONFLICT (image_id) DO NOTHING`);
  const [h] = await rowsOf<{ version: number; next_seq: number | string; updated_at: string | Date }>(
    tx,
    sql`SELECT version, next_seq, updated_at FROM annotation_documents WHERE image_id = ${imageId} FOR UPDATE`,
  );
  return { version: h!.version, nextSeq: Number(h!.next_seq), updatedAt: new Date(h!.updated_at) };
}

/** The stored text and class of the given ids (the rows' json as written). */
export async function storedTexts(db: Conn, imageId: string, ids: readonly string[]): Promise<Map<string, { seq: number; text: string; name: string }>> {
  const out = new Map<string, { seq: number; text: string; name: string }>();
  if (ids.length === 0) return out;
  const rows = await rowsOf<{ id: string; seq: number | string; data: string; name: string | null }>(
    db,
    sql`SELECT id, seq, name, data::text AS data FROM annotations WHERE image_id = ${imageId} AND id IN (SELECT json_array_elements_text(${JSON.stringify(ids)}::json))`,
  );
  for (const r of rows) out.set(r.id, { seq: Number(r.seq), text: r.data, name: r.name ?? '' });
  return out;
}

/** Shapes created, edited and deleted per class by one save, for the analytics rollup. */
export type ClassCounts = Map<string, { c: number; e: number; d: number }>;
export const countIn = (counts: ClassCounts, name: string, key: 'c' | 'e' | 'd') => {
  let row = counts.get(name);
  if (!row) counts.set(name, (row = { c: 0, e: 0, d: 0 }));
  row[key] += 1;
};

/**
 * Adds one save's shape counts per class to the member's day in analytics_member_days (issue 36;
 * rules in docs/analytics.md), in the save's transaction. The save knows what it changed, so no
 * shape's JSON is read again (0020/0022's trigger did, 1.32x on a 10k-shape whole-list save).
 * Rows go in sorted by class, the rollup's lock order.
 */
export async function countShapes(tx: Conn, imageId: string, userId: string, now: Date, counts: ClassCounts): Promise<void> {
  if (counts.size === 0) return;
  const rows = JSON.stringify([...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, n]) => ({ name, ...n })));
  await tx.execute(sql`
    INSERT INTO analytics_member_days AS s (project_id, day, user_id, class_name, shapes_created, shapes_edited, shapes_deleted)
    SELECT i.project_id, (${now.toISOString()}::timestamptz AT TIME ZONE 'UTC')::date, ${userId}, r.name, r.c, r.e, r.d
    FROM json_to_recordset(${rows}::json) AS r(name text, c int, e int, d int) JOIN images i ON i.id = ${imageId}
    ORDER BY r.name
    ON CONFLICT (project_id, day, user_id, class_name) DO UPDATE SET
      shapes_created = s.shapes_created + excluded.shapes_created,
      shapes_edited = s.shapes_edited + excluded.shapes_edited,
      shapes_deleted = s.shapes_deleted + excluded.shapes_deleted`);
}

/** Every row of the image in paint order: id, place and stored text (save-data's diff, restore). */
export async function allTexts(db: Conn, imageId: string): Promise<{ id: string; seq: number; text: string }[]> {
  const rows = await rowsOf<{ id: string; seq: number | string; data: string }>(db, sql`SELECT id, seq, data::text AS data FROM annotations WHERE image_id = ${imageId} ORDER BY seq`);
  return rows.map((r) => ({ id: r.id, seq: Number(r.seq), text: r.data }));
}

/** The image's annotations in paint order, parsed. */
export async function readAnnotations(db: Conn, imageId: string): Promise<Record<string, unknown>[]> {
  const [row] = await rowsOf<{ body: string | null }>(db, sql`SELECT string_agg(data::text, ',' ORDER BY seq) AS body FROM annotations WHERE image_id = ${imageId}`);
  return row?.body ? (JSON.parse(`[${row.body}]`) as Record<string, unknown>[]) : [];
}

/** Annotations of several images at once (of the given classes only, when given), parsed, each list in paint order: exports. */
export async function readAnnotationsOf(db: Conn, imageIds: readonly string[], classes?: ReadonlySet<string> | null): Promise<Map<string, Record<string, unknown>[]>> {
  const out = new Map<string, Record<string, unknown>[]>();
  if (imageIds.length === 0) return out;
  const ofClasses = classes ? sql`AND name IN (SELECT json_array_elements_text(${JSON.stringify([...classes])}::json))` : sql``;
  const rows = await rowsOf<{ image_id: string; body: string }>(
    db,
    sql`SELECT image_id, string_agg(data::text, ',' ORDER BY seq) AS body FROM annotations
        WHERE image_id IN (SELECT value::uuid FROM json_array_elements_text(${JSON.stringify(imageIds)}::json)) ${ofClasses}
        GROUP BY image_id`,
  );
  for (const r of rows) out.set(r.image_id, JSON.parse(`[${r.body}]`) as Record<string, unknown>[]);
  return out;
}

/** What one version changes. Upserts are whole annotations (validated by the caller). */
export interface ChangeSet {
  upserts: readonly Record<string, unknown>[];
  removedIds: readonly string[];
  /**
   * Paint order of a whole-list save whose order differs from the stored one: every id of the
   * image after the change, each upserted (the list is the document). Absent: a changed shape
   * keeps its place and a new one goes on top.
   */
  order?: readonly string[];
}

export interface Applied {
  version: number;
  savedAt: Date;
  added: number;
  changed: number;
  removed: number;
  /** False when nothing was written (`unchangedKeepsHead` and a change that changes nothing): `version` and `savedAt` are the head's. */
  wrote: boolean;
}

/**
 * Applies one change on the locked header as version + 1: writes the upserts that differ from
 * what is stored, deletes the removed ids that are there, records the change with the values it
 * replaced, and moves the header on. Returns what it did; the caller keeps the image's counters.
 *
 * `who.unchangedKeepsHead` (save-changes and its batch entries): a change whose every removed id
 * is absent and every upsert is the stored shape (the same JSON, keys in any order) in its place
 * writes nothing at all (no version, no log row, no NOTIFY) and returns the head as it is. A
 * change with anything real in it is written whole, as without the option.
 */
export async function applyChange(
  tx: Conn,
  imageId: string,
  header: Header,
  change: ChangeSet,
  who: { userId: string | null; now: Date; restoredFrom?: number; merged?: boolean; unchangedKeepsHead?: boolean },
): Promise<Applied> {
  const touched = [...change.upserts.map((a) => a.id as string), ...change.removedIds];
  const before = await storedTexts(tx, imageId, touched);
  let nextSeq = header.nextSeq;
  const place = change.order ? new Map(change.order.map((id, i) => [id, i])) : null;
  if (place) nextSeq = Math.max(nextSeq, change.order!.length);

  // The json_to_recordset rows, as text: each shape's own text goes in as made (stringifying the
  // row objects again would stringify every shape twice, on the event loop).
  const writes: string[] = [];
  const upsertTexts: string[] = [];
  const beforeTexts: string[] = [];
  let added = 0;
  let changed = 0;
  const counts: ClassCounts = new Map();
  // Until one part is found to change something, the change may be nothing at all (then, with
  // unchangedKeepsHead, nothing is written). A shape whose text differs is parsed only then.
  let real = !who.unchangedKeepsHead;
  for (const a of change.upserts) {
    const id = a.id as string;
    const text = JSON.stringify(a);
    const old = before.get(id);
    const seq = place?.get(id) ?? old?.seq ?? nextSeq++;
    if (old && old.text === text && old.seq === seq) continue;
    if (!real) real = !old || old.seq !== seq || !sameJson(JSON.parse(old.text), a);
    if (old) {
      if (old.text !== text) {
        changed += 1;
        countIn(counts, String(a.name ?? ''), 'e');
        beforeTexts.push(old.text);
        upsertTexts.push(text);
      }
    } else {
      added += 1;
      countIn(counts, String(a.name ?? ''), 'c');
      upsertTexts.push(text);
    }
    writes.push(`{"id":${JSON.stringify(id)},"seq":${seq},"name":${JSON.stringify(String(a.name ?? ''))},"kind":"${kindOf(a)}","data":${text}}`);
  }
  const removedIds = change.removedIds.filter((id) => before.has(id));
  if (!real && removedIds.length === 0) return { version: header.version, savedAt: header.updatedAt, added: 0, changed: 0, removed: 0, wrote: false };
  for (const id of removedIds) {
    beforeTexts.push(before.get(id)!.text);
    countIn(counts, before.get(id)!.name, 'd');
  }

  if (removedIds.length > 0) {
    await tx.execute(sql`DELETE FROM annotations WHERE image_id = ${imageId} AND id IN (SELECT json_array_elements_text(${JSON.stringify(removedIds)}::json))`);
  }
  if (writes.length > 0) {
    await tx.execute(sql`
      INSERT INTO annotations (image_id, id, seq, name, kind, data)
      SELECT ${imageId}, w.id, w.seq, w.name, w.kind, w.data FROM json_to_recordset(${`[${writes.join(',')}]`}::json) AS w(id text, seq bigint, name text, kind text, data json)
      ON CONFLICT (image_id, id) DO UPDATE SET seq = excluded.seq, name = excluded.name, kind = excluded.kind, data = excluded.data`);
  }
  const version = header.version + 1;
  await tx.execute(sql`
    INSERT INTO annotation_changes (image_id, version, user_id, created_at, upserts, removed_ids, before, added, changed, removed, restored_from, merged)
    VALUES (${imageId}, ${version}, ${who.userId}, ${who.now.toISOString()}, ${`[${upsertTexts.join(',')}]`}::json, ${JSON.stringify(removedIds)}::json,
            ${`[${beforeTexts.join(',')}]`}::json, ${added}, ${changed}, ${removedIds.length}, ${who.restoredFrom ?? null}, ${who.merged ?? false})`);
  if (who.userId) await countShapes(tx, imageId, who.userId, who.now, counts);
  await tx.execute(sql`UPDATE annotation_documents SET version = ${version}, next_seq = ${nextSeq}, updated_by = ${who.userId}, updated_at = ${who.now.toISOString()} WHERE image_id = ${imageId}`);
  await tx.execute(sql`SELECT pg_notify(${CHANGES_CHANNEL}, ${`${imageId}:${version}`})`);
  return { version, savedAt: who.now, added, changed, removed: removedIds.length, wrote: true };
}
