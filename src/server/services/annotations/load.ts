// GET load-data: the annotations of an image, streamed in paint order, as stored JSON or in the
// column encoding (contract/annotation-columns.ts).
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { COLUMNS_FORMAT, encodeBlock } from '../../../contract/annotation-columns';
import { annotatedImage } from '../access';
import { layerLoad, layerOf } from './gt-layer';
import { rowsOf } from './store';

type Annotation = Record<string, unknown>;

/** Shapes per chunk of a streamed load (and per block of the column encoding). */
const LOAD_CHUNK_SHAPES = 2000;

/**
 * load-data's body as JSON text chunks, in paint order: one statement (so one snapshot of rows
 * and version) aggregates the rows in chunks of LOAD_CHUNK_SHAPES in the database, and the route
 * streams them out (compressed when the client accepts it). Plain: the rows' text as stored,
 * never parsed. `columns` (contract/annotation-columns.ts): each chunk becomes a block of columns,
 * one chunk per turn of the event loop as the stream is read, so other requests go on meanwhile.
 */
export async function loadDataChunks(ctx: AppContext, userId: string, imageId: string, query: { project_id?: string; encoding?: 'columns' }): Promise<AsyncIterable<string> | string[]> {
  await annotatedImage(ctx, userId, imageId, query.project_id, 'annotations.read');
  // The caller's own layer (a ground-truth attempt or a consensus draft), when they hold one.
  const layer = await layerOf(ctx.db, imageId, userId);
  if (layer) {
    const loaded = layerLoad(layer.row);
    if (query.encoding !== 'columns') return [JSON.stringify(loaded)];
    const list = loaded.annotations as Annotation[];
    const blocks = list.length ? [encodeBlock(list)] : [];
    return [JSON.stringify({ format: COLUMNS_FORMAT, count: list.length, version: loaded.version, saved_at: loaded.saved_at, annotations: blocks })];
  }
  const rows = await rowsOf<{ version: number; updated_at: string | Date; n: number | string | null; body: string | null }>(
    ctx.db,
    sql`SELECT d.version, d.updated_at, c.n, c.body FROM annotation_documents d
        LEFT JOIN LATERAL (
          SELECT chunk, count(*) AS n, string_agg(data, ',' ORDER BY seq) AS body FROM (
            SELECT data::text AS data, seq, (row_number() OVER (ORDER BY seq) - 1) / ${LOAD_CHUNK_SHAPES} AS chunk
            FROM annotations WHERE image_id = d.image_id
          ) t GROUP BY chunk
        ) c ON true
        WHERE d.image_id = ${imageId}
        ORDER BY c.chunk`,
  );
  const version = rows[0]?.version ?? 0;
  const savedAt = JSON.stringify(version > 0 ? new Date(rows[0]!.updated_at).toISOString() : null);
  const bodies = rows.filter((r) => r.body !== null).map((r) => r.body!);
  if (query.encoding !== 'columns') {
    return ['{"annotations":[', ...bodies.map((b, i) => (i === 0 ? b : `,${b}`)), `],"version":${version},"saved_at":${savedAt}}`];
  }
  const count = rows.reduce((n, r) => n + Number(r.n ?? 0), 0);
  return (async function* () {
    yield `{"format":"${COLUMNS_FORMAT}","count":${count},"version":${version},"saved_at":${savedAt},"annotations":[`;
    for (const [i, body] of bodies.entries()) {
      if (i > 0) await new Promise((resolve) => setImmediate(resolve));
      yield (i === 0 ? '' : ',') + JSON.stringify(encodeBlock(JSON.parse(`[${body}]`) as Annotation[]));
    }
    yield ']}';
  })();
}
