// The model registry of an organization (issue 34): the built-in models, listed for everyone, and
// the organization's own rows (an ONNX file or an HTTP endpoint). Everyone in the organization
// lists them; owners and admins (org.manage) register, activate and delete. Another
// organization's model answers 404 like a missing one.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { and, asc, count, eq } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { models, organizations } from '../../db/schema';
import type { Exec } from '../../db/client';
import { apiError, errors } from '../../errors';
import { MAX_MODELS_PER_ORGANIZATION, MAX_ONNX_BYTES, type CreateModelRequest, type CreateModelResponse, type Model } from '../../../contract/models';
import { requireMember } from '../access';
import { bucketFor } from '../stored-objects';
import { MAX_UPLOAD_URL_MINUTES } from '../upload';
import { BUILTIN_MODELS, builtinModel, type BuiltinModel } from './builtin';
import { EXPECTED_YOLO, OnnxFormatError, readOnnxSummary, yoloModelInfo } from './onnx-meta';
import { checkOutgoingUrl, UrlNotAllowedError } from './url-guard';

type ModelRow = typeof models.$inferSelect;
const ONNX_CONTENT_TYPE = 'application/octet-stream';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function builtinJson(m: BuiltinModel): Model {
  return { id: m.id, name: m.name, kind: m.kind, source: 'builtin', status: 'ready', classes: [...m.classes], input_size: m.input_size, license: `${m.license} (${m.package})` };
}

function rowJson(r: ModelRow): Model {
  return {
    id: r.id,
    name: r.name,
    kind: r.kind,
    source: r.source,
    status: r.status,
    classes: r.classes,
    ...(r.inputSize ? { input_size: r.inputSize } : {}),
    ...(r.url ? { url: r.url } : {}),
    ...(r.filename ? { filename: r.filename, size: r.size ?? 0 } : {}),
    created_at: r.createdAt.toISOString(),
  };
}

const stagingKeyOf = (id: string) => `models/${id}/upload.onnx`;
const objectKeyOf = (id: string) => `models/${id}/model.onnx`;
/** Where this process keeps a ready ONNX model's file for onnxruntime, which reads from disk. */
const localFileOf = (ctx: AppContext, id: string) => path.join(ctx.config.dataDir, 'models', `${id}.onnx`);

/**
 * A ready ONNX model's checked file on this machine's disk, copied from storage on first use
 * (written aside and renamed, so a reader never sees half a file). A model's file never changes
 * once ready, so a copy of the right size is the file.
 */
export async function onnxModelFile(ctx: AppContext, model: { id: string; organizationId: string; objectKey: string; size: number }): Promise<string> {
  const file = localFileOf(ctx, model.id);
  const have = await fs.promises.stat(file).catch(() => null);
  if (have?.size === model.size) return file;
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  const bucket = await bucketFor(ctx, model.organizationId);
  const part = `${file}.${randomUUID()}.part`;
  try {
    await pipeline(await ctx.storage.getBody(bucket, model.objectKey), fs.createWriteStream(part));
    await fs.promises.rename(part, file);
  } finally {
    await fs.promises.rm(part, { force: true });
  }
  return file;
}

export async function listModels(ctx: AppContext, userId: string, organizationId: string): Promise<Model[]> {
  await requireMember(ctx.db, userId, organizationId, 'org.read');
  const rows = await ctx.db.select().from(models).where(eq(models.organizationId, organizationId)).orderBy(asc(models.createdAt), asc(models.id));
  return [...BUILTIN_MODELS.map(builtinJson), ...rows.map(rowJson)];
}

/** The organization's model row `id` for a caller with `permission` there; 404 for a missing one or another organization's. */
async function ownModel(ctx: AppContext, userId: string, id: string, permission: 'org.read' | 'org.manage'): Promise<ModelRow> {
  if (builtinModel(id)) throw errors.badRequest('Built-in models cannot be changed or deleted');
  const [row] = UUID.test(id) ? await ctx.db.select().from(models).where(eq(models.id, id)).limit(1) : [];
  if (!row) throw errors.notFound('Model');
  await requireMember(ctx.db, userId, row.organizationId, permission, 'Model');
  return row;
}

/** 409 models_limit when the organization has MAX_MODELS_PER_ORGANIZATION models. */
async function refuseOverLimit(db: Exec, organizationId: string): Promise<void> {
  const [{ n }] = (await db.select({ n: count() }).from(models).where(eq(models.organizationId, organizationId))) as [{ n: number }];
  if (Number(n) >= MAX_MODELS_PER_ORGANIZATION) throw errors.conflict(`An organization may register at most ${MAX_MODELS_PER_ORGANIZATION} models: delete one first`, 'models_limit');
}

/**
 * Inserts the model unless the organization is at its limit, counted again under a lock on the
 * organization's row: two registrations at once are counted one after the other, so the limit
 * holds (a count and then an insert let both pass at 99).
 */
async function insertWithinLimit(ctx: AppContext, values: typeof models.$inferInsert): Promise<ModelRow> {
  return ctx.db.transaction(async (tx) => {
    await tx.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, values.organizationId)).for('update');
    await refuseOverLimit(tx, values.organizationId);
    const [row] = await tx.insert(models).values(values).returning();
    return row!;
  });
}

export async function createModel(ctx: AppContext, userId: string, body: CreateModelRequest): Promise<CreateModelResponse> {
  await requireMember(ctx.db, userId, body.organization_id, 'org.manage');
  await refuseOverLimit(ctx.db, body.organization_id);
  const id = randomUUID();
  if (body.source === 'http') {
    try {
      await checkOutgoingUrl(body.url, { allowPrivate: ctx.config.models?.allowPrivateUrls ?? false });
    } catch (err) {
      if (err instanceof UrlNotAllowedError) throw errors.badRequest(err.message, 'url_not_allowed');
      throw err;
    }
    const row = await insertWithinLimit(ctx, { id, organizationId: body.organization_id, createdBy: userId, name: body.name, source: 'http', kind: body.kind, status: 'ready', classes: body.classes, url: body.url, headers: body.headers ?? {} });
    return { model: rowJson(row) };
  }
  const bucket = await bucketFor(ctx, body.organization_id);
  // The declared size is the most the URL takes (the local driver checks it at PUT; activate checks it for S3).
  const signed = await ctx.storage.signedUploadUrl(bucket, stagingKeyOf(id), { expiresInSeconds: MAX_UPLOAD_URL_MINUTES * 60, contentType: ONNX_CONTENT_TYPE, maxBytes: body.size });
  const row = await insertWithinLimit(ctx, { id, organizationId: body.organization_id, createdBy: userId, name: body.name, source: 'onnx', kind: 'detect', status: 'pending', filename: body.filename, size: body.size, stagingKey: stagingKeyOf(id) });
  return { model: rowJson(row), upload_url: signed.url, content_type: ONNX_CONTENT_TYPE };
}

/** The staged upload's bytes, refused past `limit` without reading further. */
async function stagedBytes(ctx: AppContext, bucket: string, key: string, limit: number): Promise<Buffer | null> {
  const head = await ctx.storage.head(bucket, key);
  if (!head) return null;
  if (head.size > limit) throw apiError('file_too_large', `The uploaded file is ${head.size} bytes, more than the ${limit} declared`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of await ctx.storage.getBody(bucket, key)) {
    size += (chunk as Buffer).length;
    if (size > limit) throw apiError('file_too_large', `The uploaded file is more than the ${limit} bytes declared`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Reads the uploaded ONNX file's graph and metadata; an Ultralytics YOLO detect/segment export becomes ready, anything else is 400 unsupported_model. */
export async function activateModel(ctx: AppContext, userId: string, id: string): Promise<Model> {
  const row = await ownModel(ctx, userId, id, 'org.manage');
  if (row.source !== 'onnx') throw errors.badRequest('Only ONNX models are activated: an HTTP model is ready when registered');
  if (row.status === 'ready') return rowJson(row);
  const bucket = await bucketFor(ctx, row.organizationId);
  const bytes = await stagedBytes(ctx, bucket, row.stagingKey!, Math.min(row.size ?? MAX_ONNX_BYTES, MAX_ONNX_BYTES));
  if (!bytes) throw errors.conflict('PUT the model file to its upload URL first', 'model_not_uploaded');
  let info: ReturnType<typeof yoloModelInfo>;
  try {
    info = yoloModelInfo(readOnnxSummary(bytes));
  } catch (err) {
    if (!(err instanceof OnnxFormatError)) throw err;
    throw errors.badRequest(`The file is not an ONNX model (${err.message}). Expected ${EXPECTED_YOLO}`, 'unsupported_model');
  }
  if ('problem' in info) throw errors.badRequest(`The model does not fit: ${info.problem}. Expected ${EXPECTED_YOLO}`, 'unsupported_model');
  // The checked bytes go to a key no upload URL can write; the staging object goes.
  await ctx.storage.put(bucket, objectKeyOf(row.id), bytes, { contentType: ONNX_CONTENT_TYPE, contentLength: bytes.length });
  await ctx.storage.delete(bucket, row.stagingKey!).catch(() => undefined);
  const [updated] = await ctx.db
    .update(models)
    .set({ status: 'ready', kind: info.kind, classes: info.classes, inputSize: info.input_size, size: bytes.length, objectKey: objectKeyOf(row.id), updatedAt: new Date() })
    .where(and(eq(models.id, row.id), eq(models.status, 'pending')))
    .returning();
  return rowJson(updated ?? row);
}

export async function deleteModel(ctx: AppContext, userId: string, id: string): Promise<void> {
  const row = await ownModel(ctx, userId, id, 'org.manage');
  await ctx.db.delete(models).where(eq(models.id, row.id));
  if (row.source !== 'onnx') return;
  await fs.promises.rm(localFileOf(ctx, row.id), { force: true });
  const bucket = await bucketFor(ctx, row.organizationId).catch(() => null);
  if (!bucket) return;
  for (const key of [row.stagingKey, row.objectKey]) if (key) await ctx.storage.delete(bucket, key).catch(() => undefined);
}
