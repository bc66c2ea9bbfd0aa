// The baseline of bench/annotations.bench.ts: the whole-document storage Vellum had before issue 14,
// as it was (services/annotations.ts at a80fa4f), on a table of its own beside the rows, served by
// two routes under /api/v1/bench-legacy so it is timed through the same HTTP, auth and validation.
// A save reads the image's whole json document, splices the change in and writes all of it back;
// load-data reads the document and sends it through the response serializer.
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../../src/server/context';
import { callerOf } from '../../src/server/http/auth-guard';
import { errors } from '../../src/server/errors';
import { imageFor } from '../../src/server/services/access';
import { adjustCounters } from '../../src/server/services/images';
import { validateAnnotations } from '../../src/server/services/annotations';
import { images, projects } from '../../src/server/db/schema';
import { ImageIdParams, LoadDataResponse, SaveChangesRequest, SaveDataResponse } from '../../src/contract/annotation-api';

type Rows = { rows: Record<string, unknown>[] };

/** The baseline's routes; `context` is read per request (the routes go in before the server listens). */
export async function legacyRoutes(fastify: FastifyInstance, context: () => AppContext): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { sql } = await import('drizzle-orm');

  app.get('/api/v1/bench-legacy/load-data/:imageId', { schema: { params: ImageIdParams, response: { 200: LoadDataResponse } } }, async (request) => {
    const ctx = context();
    await imageFor(ctx, callerOf(request).id, request.params.imageId, 'annotations.read');
    const res = (await ctx.db.execute(sql`SELECT annotations, version, updated_at FROM bench_legacy_documents WHERE image_id = ${request.params.imageId}`)) as unknown as Rows;
    const doc = res.rows[0];
    return { annotations: (doc?.annotations ?? []) as Record<string, unknown>[], version: Number(doc?.version ?? 0), saved_at: doc ? new Date(doc.updated_at as string).toISOString() : null };
  });

  app.post('/api/v1/bench-legacy/save-changes', { bodyLimit: 8 * 1024 * 1024, schema: { body: SaveChangesRequest, response: { 200: SaveDataResponse } } }, async (request) => {
    const ctx = context();
    const body = request.body;
    const userId = callerOf(request).id;
    const image = await imageFor(ctx, userId, body.image_id, 'annotations.write');
    const [project] = await ctx.db.select({ classes: projects.classes }).from(projects).where(eq(projects.id, image.projectId)).limit(1);
    validateAnnotations(body.upserts, new Set(project!.classes.map((c) => c.name)));
    return ctx.db.transaction(async (tx) => {
      const [before] = await tx.select().from(images).where(eq(images.id, image.id)).for('update');
      const head = (await tx.execute(sql`SELECT version FROM bench_legacy_documents WHERE image_id = ${image.id} FOR UPDATE`)) as unknown as Rows;
      const current = Number(head.rows[0]?.version ?? 0);
      const doc = (await tx.execute(sql`SELECT annotations, updated_at FROM bench_legacy_documents WHERE image_id = ${image.id}`)) as unknown as Rows;
      const stored = (doc.rows[0]?.annotations ?? []) as Record<string, unknown>[];
      if (body.base_version !== current) {
        // As it was: the 409 carries the whole current document.
        const saved_at = doc.rows[0] ? new Date(doc.rows[0].updated_at as string).toISOString() : null;
        throw errors.conflict(`stale ${body.base_version} (now ${current})`, 'version_conflict', { current: { annotations: stored, version: current, saved_at } });
      }
      const upserts = new Map(body.upserts.map((a) => [(a as { id: string }).id, a]));
      const removed = new Set(body.removed_ids);
      const out: unknown[] = [];
      for (const a of stored) {
        const id = a.id as string;
        if (removed.has(id)) continue;
        out.push(upserts.get(id) ?? a);
        upserts.delete(id);
      }
      for (const a of upserts.values()) out.push(a);
      const version = current + 1;
      const now = new Date();
      await tx.execute(sql`INSERT INTO bench_legacy_documents (image_id, annotations, version, updated_by, updated_at) VALUES (${image.id}, ${JSON.stringify(out)}::json, ${version}, ${userId}, ${now.toISOString()})
        ON CONFLICT (image_id) DO UPDATE SET annotations = excluded.annotations, version = excluded.version, updated_by = excluded.updated_by, updated_at = excluded.updated_at`);
      const [after] = await tx.update(images).set({ annotationCount: out.length, updatedAt: now }).where(eq(images.id, image.id)).returning();
      await adjustCounters(tx, before!.projectId, [before!], [after!]);
      return { success: true as const, status_updated: false, status: after!.status, new_count: out.length, version, saved_at: now.toISOString() };
    });
  });
}

export async function createLegacyTable(ctx: AppContext): Promise<void> {
  await ctx.database.exec(`CREATE TABLE IF NOT EXISTS bench_legacy_documents (
    image_id uuid PRIMARY KEY, annotations json NOT NULL, version integer NOT NULL DEFAULT 0, updated_by uuid, updated_at timestamptz NOT NULL DEFAULT now())`);
}

/** Writes a whole document straight into the baseline's table (seeding). */
export async function seedLegacyDocument(ctx: AppContext, imageId: string, annotations: unknown[], version: number): Promise<void> {
  const { sql } = await import('drizzle-orm');
  await ctx.db.execute(sql`INSERT INTO bench_legacy_documents (image_id, annotations, version) VALUES (${imageId}, ${JSON.stringify(annotations)}::json, ${version})
    ON CONFLICT (image_id) DO UPDATE SET annotations = excluded.annotations, version = excluded.version`);
}
