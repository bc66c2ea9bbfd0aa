// Moves annotation documents of the old layout (one json list per image, before
// 0006_annotation_rows.sql) into rows of `annotations`, a few images per transaction, so a large
// database moves without one huge transaction and an interrupted start-up picks up where it
// stopped: each batch moves its documents and empties their `annotations` column in one statement,
// so a document is either still whole or wholly moved. Runs from migrate(), under its advisory lock.
import type { Database } from './client';

/** Images moved per statement (a 100k-shape document is ~33 MB, so batches stay small). */
export const MOVE_BATCH_IMAGES = 20;

/** The kind of a stored annotation in SQL, over the json value `v` (the stored-annotation rule: one shape key beside the box). */
export const KIND_SQL = (v: string) => `CASE
    WHEN ${v} -> 'polygon' IS NOT NULL THEN 'polygon'
    WHEN ${v} -> 'polyline' IS NOT NULL THEN 'polyline'
    WHEN ${v} -> 'keypoint' IS NOT NULL THEN 'keypoint'
    WHEN ${v} -> 'segmentation' IS NOT NULL THEN 'segmentation'
    ELSE 'box' END`;

const MOVE_BATCH = `
WITH batch AS (
  SELECT image_id, annotations FROM annotation_documents
  WHERE annotations IS NOT NULL ORDER BY image_id LIMIT ${MOVE_BATCH_IMAGES} FOR UPDATE
), moved AS (
  INSERT INTO annotations (image_id, id, seq, name, kind, data)
  SELECT b.image_id, coalesce(e.value ->> 'id', 'unnamed-' || e.n), e.n - 1, coalesce(e.value ->> 'name', ''), ${KIND_SQL('e.value')}, e.value
  FROM batch b CROSS JOIN LATERAL json_array_elements(b.annotations) WITH ORDINALITY AS e(value, n)
  ON CONFLICT (image_id, id) DO NOTHING
)
UPDATE annotation_documents d SET annotations = NULL, next_seq = json_array_length(b.annotations)
FROM batch b WHERE d.image_id = b.image_id`;

/**
 * Moves every document still in the old layout; returns how many batches ran. `afterBatch` lets a
 * test stop the move part-way, as a crash would.
 */
export async function moveDocumentsToRows(database: Pick<Database, 'exec' | 'db'>, afterBatch?: (batch: number) => void | Promise<void>): Promise<number> {
  const { sql } = await import('drizzle-orm');
  const pending = async () => {
    const res = (await database.db.execute(sql`SELECT EXISTS (SELECT 1 FROM annotation_documents WHERE annotations IS NOT NULL) AS left`)) as unknown as { rows: { left: boolean }[] };
    return res.rows[0]?.left === true;
  };
  let batches = 0;
  while (await pending()) {
    await database.exec(MOVE_BATCH);
    batches += 1;
    await afterBatch?.(batches);
  }
  return batches;
}
