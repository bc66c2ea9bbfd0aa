// One model on one image, for a pre-label job: the model a job names (built-in, the organization's
// own ONNX model or HTTP endpoint), its raw predictions, and their stored-annotation form. The
// built-in detector and ONNX models run on an offload thread (models/detect.ts), so the job's
// process keeps answering requests.
import { and, eq } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { models } from '../../db/schema';
import { errors } from '../../errors';
import type { PredictionSource } from '../../../contract/annotations';
import { rleBBox } from '../../../contract/rle';
import { builtinModel } from '../models/builtin';
import { detect, detectWithYolo } from '../models/detect';
import { callHttpModel } from '../models/http-client';
import { onnxModelFile } from '../models/registry';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A model a job can run. */
export type RunnableModel =
  | { id: string; source: 'builtin'; classes: readonly string[]; run: 'builtin' }
  | { id: string; source: 'onnx'; kind: 'detect' | 'segment'; classes: readonly string[]; inputSize: number; organizationId: string; objectKey: string; size: number }
  | { id: string; source: 'http'; classes: readonly string[]; url: string; headers: Record<string, string> };

/** One prediction in the image's pixels, before its class is mapped. */
export interface RawPrediction {
  modelClass: string;
  score: number;
  shape: { box: [number, number, number, number] } | { polygon: number[] } | { rle: { size: [number, number]; counts: string | number[] } };
}

/**
 * The model `modelId` of organization `organizationId`, ready to run: 404 when it is not the
 * organization's (or missing), 400 model_not_runnable when it cannot pre-label.
 */
export async function runnableModel(ctx: AppContext, organizationId: string, modelId: string): Promise<RunnableModel> {
  const builtin = builtinModel(modelId);
  if (builtin) return { id: builtin.id, source: 'builtin', classes: builtin.classes, run: 'builtin' };
  const [row] = UUID.test(modelId) ? await ctx.db.select().from(models).where(and(eq(models.id, modelId), eq(models.organizationId, organizationId))).limit(1) : [];
  if (!row) throw errors.notFound('Model');
  if (row.source === 'onnx') {
    if (row.status !== 'ready' || !row.objectKey || !row.inputSize || !row.size) throw errors.badRequest('The model is not activated yet: upload its file and activate it first', 'model_not_runnable');
    if (row.kind === 'pose') throw errors.badRequest('Pose models cannot pre-label yet', 'model_not_runnable');
    return { id: row.id, source: 'onnx', kind: row.kind, classes: row.classes, inputSize: row.inputSize, organizationId: row.organizationId, objectKey: row.objectKey, size: row.size };
  }
  return { id: row.id, source: 'http', classes: row.classes, url: row.url!, headers: row.headers };
}

/** The model's predictions for one image: its bytes for the built-in detector, a signed URL for an HTTP model. */
export async function predictImage(
  ctx: AppContext,
  model: RunnableModel,
  image: { bytes: () => Promise<Buffer>; url: () => Promise<string>; width: number; height: number },
  opts: { minScore: number; maxPerImage: number },
): Promise<RawPrediction[]> {
  let out: RawPrediction[];
  if (model.source === 'builtin') {
    const spec = builtinModel(model.id)!.spec();
    const found = await detect(spec, await image.bytes(), { minScore: opts.minScore, maxDetections: opts.maxPerImage });
    out = found.map((d) => ({ modelClass: model.classes[d.classIndex] ?? String(d.classIndex), score: d.score, shape: { box: d.box } }));
  } else if (model.source === 'onnx') {
    const file = await onnxModelFile(ctx, model);
    const spec = { id: model.id, file, kind: model.kind, classes: model.classes.length, inputSize: model.inputSize };
    const found = await detectWithYolo(spec, await image.bytes(), { minScore: opts.minScore, maxDetections: opts.maxPerImage });
    out = found.map((d) => ({ modelClass: model.classes[d.classIndex] ?? String(d.classIndex), score: d.score, shape: d.rle ? { rle: d.rle } : { box: d.box } }));
  } else {
    const answer = await callHttpModel(
      { url: model.url, headers: model.headers, classes: [...model.classes] },
      { image_url: await image.url(), width: image.width, height: image.height, classes: [...model.classes] },
      { allowPrivate: ctx.config.models?.allowPrivateUrls ?? false },
    );
    out = answer.predictions.map((p) => ({ modelClass: p.class, score: p.score, shape: 'box' in p ? { box: p.box } : 'polygon' in p ? { polygon: p.polygon } : { rle: p.rle } }));
  }
  return out
    .filter((p) => p.score >= opts.minScore)
    .sort((a, b) => b.score - a.score)
    .slice(0, opts.maxPerImage);
}

const round = (n: number) => Math.round(n * 100) / 100;

/** The stored annotation of a prediction (boxes clamped to the image), or null when nothing of it is inside the image. */
export function predictionAnnotation(
  p: RawPrediction,
  id: string,
  className: string,
  source: PredictionSource,
  size: { width: number; height: number },
): Record<string, unknown> | null {
  const clampBox = (x: number, y: number, w: number, h: number) => {
    const x0 = Math.max(0, Math.min(size.width, x)), y0 = Math.max(0, Math.min(size.height, y));
    const x1 = Math.max(0, Math.min(size.width, x + w)), y1 = Math.max(0, Math.min(size.height, y + h));
    return x1 - x0 > 0 && y1 - y0 > 0 ? { x: round(x0), y: round(y0), w: round(x1 - x0), h: round(y1 - y0) } : null;
  };
  const base = { id, name: className };
  if ('box' in p.shape) {
    const bb = clampBox(...p.shape.box);
    return bb && { ...base, bounding_box: bb, source };
  }
  if ('polygon' in p.shape) {
    const flat = p.shape.polygon;
    const path: [number, number][] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) path.push([round(Math.max(0, Math.min(size.width, flat[i]!))), round(Math.max(0, Math.min(size.height, flat[i + 1]!)))]);
    const xs = path.map((q) => q[0]), ys = path.map((q) => q[1]);
    const bb = clampBox(Math.min(...xs), Math.min(...ys), Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys));
    return bb && path.length >= 3 ? { ...base, bounding_box: bb, polygon: { path }, source } : null;
  }
  const box = rleBBox(p.shape.rle);
  if (box.width === 0 || box.height === 0) return null;
  return { ...base, bounding_box: { x: box.x, y: box.y, w: box.width, h: box.height }, segmentation: p.shape.rle, source };
}
