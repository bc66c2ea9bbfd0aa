// Assisted segmentation (spec section 7 "Assisted segmentation"): finds the image by project and
// filename (tenant-checked), computes and caches its embedding with the configured backend,
// answers masks for clicks, and saves a mask as an annotation through the annotation service.
import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { images, organizationMembers, projects } from '../../db/schema';
import { ApiError, apiError, errors } from '../../errors';
import { loadKernelsNode, MASK_POLYGON_TOLERANCE, type Kernels } from '../../../kernels/node';
import {
  LOGITS_SIDE,
  MAX_POINTS,
  type GetMaskRequest,
  type GetMaskResponse,
  type ProcessImageRequest,
  type SaveSegmentationRequest,
  type SegmentationPoint,
} from '../../../contract/segmentation';
import { can, type Permission } from '../access';
import { type ImageRow } from '../images';
import { bucketFor } from '../stored-objects';
import { saveChanges } from '../annotations';
import { EmbeddingCache } from './cache';
import { segmentationConfig, type SegmentationConfig } from './config';
import { decodeImage, ImageDecodeError, readObject } from './image';
import { logitGrid, maskResult } from './result';
import type { Embedding, Points, Segmenter } from './types';
import { HeldEmbeddingGone, HeldSegmenter, type HeldEmbedding } from './held';
import type { ClickAnswer } from './held-thread';

/** How long get-mask trusts an image look-up (project, membership, image row) before asking the database again. */
export const LOOKUP_TTL_MS = 5000;

let kernelsPromise: Promise<Kernels> | null = null;
function kernels(): Promise<Kernels> {
  kernelsPromise ??= loadKernelsNode().catch((err: unknown) => {
    kernelsPromise = null;
    throw err;
  });
  return kernelsPromise;
}

async function createSegmenter(cfg: SegmentationConfig): Promise<Segmenter | HeldSegmenter> {
  if (cfg.backend === 'sam2') {
    // onnxruntime-node is loaded only when SAM2 is configured: the app runs without it.
    const { Sam2Segmenter } = await import('./sam2');
    return new Sam2Segmenter(cfg.sam2ModelDir!);
  }
  // Built-in: each image's embedding (hundreds of ms at 12 MP) is built and kept on an offload
  // thread, and its clicks (the cut: 0.2-2 s at 12 MP under load) run there too (./held.ts).
  return new HeldSegmenter(cfg.cacheBytes);
}

/** Memory for the per-user previous masks (a built-in state is a working-size mask, up to 1 MB). */
const PREVIOUS_STATE_BYTES = 128 * 1024 * 1024;

/** Bytes held by a backend state: its typed arrays, one level into plain objects. */
function stateBytes(v: unknown, depth = 0): number {
  if (ArrayBuffer.isView(v)) return v.byteLength;
  if (!v || typeof v !== 'object' || depth > 2) return 0;
  let sum = 0;
  for (const x of Object.values(v)) sum += stateBytes(x, depth + 1);
  return sum;
}

export class SegmentationService {
  readonly config: SegmentationConfig;
  readonly cache: EmbeddingCache;
  private segmenter: Segmenter | HeldSegmenter | null = null;
  private segmenterPromise: Promise<Segmenter | HeldSegmenter> | null = null;
  private segmenterError: string | null = null;
  /** get-mask's recent image look-ups (see resolveForMask). */
  private readonly lookups = new Map<string, { image: ImageRow; at: number }>();
  /** Last mask state per user and image, for use_previous_mask. */
  private readonly previous = new Map<string, { state: unknown; bytes: number }>();
  private previousBytes = 0;

  constructor(
    private readonly ctx: AppContext,
    config?: SegmentationConfig,
  ) {
    this.config = config ?? ctx.config.segmentation ?? segmentationConfig(process.env);
    // An embedding held on an offload thread is dropped there when the cache lets it go.
    this.cache = new EmbeddingCache(this.config.cacheBytes, Date.now, (value) => {
      if (this.segmenter instanceof HeldSegmenter) this.segmenter.drop(value as HeldEmbedding);
    });
  }

  /** Keeps a prediction's state for the next click; least recently used first out, within PREVIOUS_STATE_BYTES and 1000 entries. */
  private rememberState(key: string, state: unknown): void {
    const old = this.previous.get(key);
    if (old) this.previousBytes -= old.bytes;
    this.previous.delete(key); // re-insert: the map stays in least-recently-used order
    const bytes = stateBytes(state);
    this.previous.set(key, { state, bytes });
    this.previousBytes += bytes;
    while (this.previous.size > 1 && (this.previous.size > 1000 || this.previousBytes > PREVIOUS_STATE_BYTES)) {
      const [first, entry] = this.previous.entries().next().value!;
      this.previous.delete(first);
      this.previousBytes -= entry.bytes;
    }
  }

  get backend() {
    return this.config.backend;
  }

  private async ready(): Promise<Segmenter | HeldSegmenter> {
    this.segmenterPromise ??= createSegmenter(this.config)
      .then(async (s) => {
        await s.warmup();
        const st = s.status();
        if (!st.loaded) throw new Error(st.error ?? 'The segmenter did not load');
        this.segmenter = s;
        this.segmenterError = null;
        return s;
      })
      .catch((err: unknown) => {
        this.segmenterError = (err as Error).message;
        this.segmenterPromise = null; // a later warmup retries (e.g. after the model files appear)
        throw err;
      });
    try {
      return await this.segmenterPromise;
    } catch (err) {
      this.ctx.log.error({ err }, 'segmenter failed to load');
      throw errors.unavailable(`The ${this.backend} segmenter is not available: ${(err as Error).message}`);
    }
  }

  /** Starts loading; answers without waiting for it. */
  warmup() {
    if (!this.segmenter) void this.ready().catch(() => undefined);
    return this.segmenter
      ? { status: 'ready' as const, backend: this.backend }
      : this.segmenterError && !this.segmenterPromise
        ? { status: 'failed' as const, backend: this.backend, error: this.segmenterError }
        : { status: 'warming' as const, backend: this.backend };
  }

  health() {
    const cache = { entries: this.cache.size, bytes: this.cache.bytes, max_bytes: this.cache.maxBytes };
    if (this.segmenter) return { status: 'healthy' as const, backend: this.backend, model_loaded: true, cache };
    if (this.segmenterError && !this.segmenterPromise) return { status: 'unhealthy' as const, backend: this.backend, model_loaded: false, error: this.segmenterError, cache };
    return { status: 'starting' as const, backend: this.backend, model_loaded: false, cache };
  }

  /**
   * The image named `imageName` in the project, if the caller may `permission` there: 404 when the
   * project, the caller's membership or the image is missing, 403 when the role lacks `permission`.
   * One query finds the project, the caller's role in its organization and the image (the same
   * rule as requireMember, in one round trip).
   */
  async resolveImage(userId: string, projectId: string, imageName: string, permission: Permission): Promise<ImageRow> {
    const [row] = await this.ctx.db
      .select({ role: organizationMembers.role, image: images })
      .from(projects)
      .leftJoin(organizationMembers, and(eq(organizationMembers.organizationId, projects.organizationId), eq(organizationMembers.userId, userId)))
      .leftJoin(images, and(eq(images.projectId, projects.id), eq(images.filename, imageName)))
      .where(eq(projects.id, projectId))
      .limit(1);
    if (!row?.role) throw errors.notFound('Project');
    if (!can(row.role, permission)) throw errors.forbidden(`Your role (${row.role}) does not allow this`);
    if (!row.image) throw errors.notFound('Image');
    return row.image;
  }

  /**
   * resolveImage for get-mask, remembered per caller, project and name for LOOKUP_TTL_MS: the
   * clicks of one session then cost no database round trip. Only successful look-ups are kept, so
   * a refusal is answered fresh every time; a membership removed, a role lowered below
   * annotations.write or an image removed meanwhile is noticed within the TTL (masks only: saving always looks up afresh).
   */
  private async resolveForMask(userId: string, projectId: string, imageName: string): Promise<ImageRow> {
    const key = `${userId}\n${projectId}\n${imageName}`;
    const t = this.ctx.now?.().getTime() ?? Date.now();
    const hit = this.lookups.get(key);
    if (hit && t - hit.at < LOOKUP_TTL_MS) return hit.image;
    const image = await this.resolveImage(userId, projectId, imageName, 'annotations.write');
    this.lookups.delete(key);
    this.lookups.set(key, { image, at: t });
    if (this.lookups.size > 1000) this.lookups.delete(this.lookups.keys().next().value!);
    return image;
  }

  private async embedding(image: ImageRow) {
    const segmenter = await this.ready();
    try {
      return await this.cache.get(image.id, async () => {
        const bucket = await bucketFor(this.ctx, image.organizationId);
        const { body } = await this.ctx.storage.get(bucket, image.gcsPath);
        const bytes = await readObject(body);
        return segmenter.embed(await decodeImage(bytes, segmenter.maxSide, segmenter.wantsFullRes));
      });
    } catch (err) {
      if (err instanceof ApiError) throw err;
      if (err instanceof ImageDecodeError) throw apiError('image_unreadable', err.message);
      if ((err as Error).name === 'ObjectNotFoundError' || /not found/i.test((err as Error).message)) {
        throw apiError('image_file_missing', 'The image file is missing from storage');
      }
      throw err;
    }
  }

  /** Assisted segmentation is annotating: it needs annotations.write (README "Roles"), as saving does. */
  async processImage(userId: string, req: ProcessImageRequest) {
    const image = await this.resolveImage(userId, req.project_id, req.image_name, 'annotations.write');
    const { value, fresh, seconds } = await this.embedding(image);
    const e = value as Embedding & { width?: number; height?: number };
    return {
      status: fresh ? ('success' as const) : ('already_loaded' as const),
      size: { width: e.width ?? image.imageWidth ?? 0, height: e.height ?? image.imageHeight ?? 0 },
      embedding_time: Math.round(seconds * 1000) / 1000,
      backend: this.backend,
    };
  }

  async getMask(userId: string, req: GetMaskRequest, signal?: AbortSignal): Promise<GetMaskResponse> {
    const image = await this.resolveForMask(userId, req.project_id, req.image_name);
    const pt = (p: SegmentationPoint): [number, number] => (Array.isArray(p) ? [p[0], p[1]] : [p.x, p.y]);
    const positive = req.positive_points.map(pt), negative = req.negative_points.map(pt);
    if (req.x !== undefined && req.y !== undefined) {
      const has = (list: [number, number][]) => list.some(([x, y]) => x === req.x && y === req.y);
      if (!has(positive) && !has(negative)) positive.push([req.x, req.y]);
    } else if ((req.x === undefined) !== (req.y === undefined)) {
      throw errors.badRequest('x and y go together', 'invalid_point');
    }
    const total = positive.length + negative.length;
    const box = req.box;
    if (box && !(box[2] > 0 && box[3] > 0)) throw errors.badRequest('The box needs a positive width and height', 'invalid_box');
    if (total === 0 && !box) throw errors.badRequest('Give at least one positive point', 'no_points');
    if (total > MAX_POINTS) throw errors.badRequest(`At most ${MAX_POINTS} points per request (got ${total})`, 'too_many_points');
    if (positive.length === 0 && !box) throw errors.badRequest('Give at least one positive point', 'no_positive_point');

    const { value } = await this.embedding(image);
    const e = value as Embedding & { width: number; height: number };
    for (const [x, y] of [...positive, ...negative]) {
      if (!(x >= 0 && y >= 0 && x < e.width && y < e.height)) {
        throw errors.badRequest(`Point (${x}, ${y}) is outside the image (${e.width} x ${e.height})`, 'point_outside_image');
      }
    }
    // The part of the box on the image (a box drawn past the image's edge is clipped to it).
    let clipped: [number, number, number, number] | undefined;
    if (box) {
      const x0 = Math.max(0, box[0]), y0 = Math.max(0, box[1]);
      const x1 = Math.min(e.width, box[0] + box[2]), y1 = Math.min(e.height, box[1] + box[3]);
      if (!(x1 > x0 && y1 > y0)) throw errors.badRequest(`The box is outside the image (${e.width} x ${e.height})`, 'box_outside_image');
      clipped = [x0, y0, x1 - x0, y1 - y0];
    }
    if (signal?.aborted) throw apiError('cancelled', 'The request was cancelled');
    const started = performance.now();
    const points: Points = { positive, negative, ...(clipped ? { box: clipped } : {}) };
    const result = await this.click(userId, image, e, points, req.use_previous_mask ?? false, req.tolerance ?? MASK_POLYGON_TOLERANCE);
    const inference = (performance.now() - started) / 1000;
    const annotations = result.polygons.map((p) => ({ polygon: { path: p.path, holes: p.holes }, metadata: { sam2_area: Math.round(p.area * 100) / 100 } }));
    return {
      status: 'success',
      vellum_annotation: annotations[0] ?? null,
      vellum_annotations: annotations,
      polygon: annotations[0]?.polygon.path ?? [],
      bbox: result.bbox,
      area: result.area,
      score: Math.round(result.score * 1e4) / 1e4,
      inference_time: Math.round(inference * 1e4) / 1e4,
      point_coords: [...positive, ...negative],
      point_labels: [...positive.map(() => 1), ...negative.map(() => 0)],
      mask: { size: [e.height, e.width], counts: result.counts },
      logits: result.logits,
      backend: this.backend,
    };
  }

  /**
   * One click's mask. The built-in backend's clicks run on the offload thread that holds the
   * embedding; when that thread lost it (its bound, or it stopped), the image is embedded again
   * once and the click runs on the new embedding (without the previous mask, which went with it).
   * Other backends predict here and the answer is made here.
   */
  private async click(userId: string, image: ImageRow, e: Embedding & { width: number; height: number }, points: Points, usePrevious: boolean, tolerance: number): Promise<Omit<ClickAnswer, 'bytes'>> {
    const segmenter = await this.ready();
    const key = `${userId}/${image.id}`;
    if (segmenter instanceof HeldSegmenter) {
      const opts = { usePrevious, tolerance, logitSide: LOGITS_SIDE };
      try {
        return await segmenter.click(e as HeldEmbedding, key, points, opts);
      } catch (err) {
        if (!(err instanceof HeldEmbeddingGone)) throw err;
        this.ctx.log.warn({ imageId: image.id, err: err.message }, 'segmentation: the prepared image was lost; preparing it again');
        this.cache.deleteValue(image.id, e);
        const again = (await this.embedding(image)).value as HeldEmbedding;
        return segmenter.click(again, key, points, { ...opts, usePrevious: false });
      }
    }
    const prediction = await segmenter.predict(e, points, usePrevious ? this.previous.get(key)?.state : undefined);
    this.rememberState(key, prediction.state);
    const result = maskResult(await kernels(), prediction.mask, e.width, e.height, tolerance, prediction.fine);
    return { ...result, score: prediction.score, logits: logitGrid(prediction.mask, prediction.logits, e.width, e.height, LOGITS_SIDE) };
  }

  /** Adds the mask as an annotation of `class_name` on top of the image's annotations (one row; 409 when `base_version` is given and stale). */
  async saveSegmentation(userId: string, req: SaveSegmentationRequest) {
    const image = await this.resolveImage(userId, req.project_id, req.image_name, 'annotations.write');
    const width = image.imageWidth, height = image.imageHeight;
    if (!width || !height) throw errors.badRequest('The image has no known size yet', 'image_size_unknown');
    const k = await kernels();
    let counts: string;
    if (req.mask) {
      if (req.mask.size[0] !== height || req.mask.size[1] !== width) {
        throw errors.badRequest(`mask.size must be the image's [height, width] = [${height}, ${width}]`, 'invalid_mask');
      }
      counts = req.mask.counts;
      try {
        if (k.area({ size: req.mask.size, counts }) < 0) throw new Error('negative');
        k.decodeView({ size: req.mask.size, counts });
      } catch (err) {
        throw errors.badRequest(`mask.counts is not a valid RLE for this size: ${(err as Error).message}`, 'invalid_mask');
      }
    } else {
      const polys = req.vellum_annotations ?? (req.vellum_annotation ? [req.vellum_annotation] : []);
      if (polys.length === 0) throw errors.badRequest('Give the mask (as get-mask returned it) or its polygons', 'no_mask');
      try {
        counts = k.countsToString(k.polygonsToRle(polys.map((p) => p.polygon), height, width));
      } catch (err) {
        throw errors.badRequest(`The polygons cannot be rasterised: ${(err as Error).message}`, 'invalid_polygon');
      }
    }
    const area = k.area({ size: [height, width], counts });
    if (area === 0) throw errors.badRequest('The mask is empty', 'empty_mask');
    const b = k.bbox({ size: [height, width], counts });
    const meta = req.metadata;
    const annotation: Record<string, unknown> = {
      id: randomUUID(),
      name: req.class_name,
      bounding_box: { x: b.x, y: b.y, w: b.width, h: b.height },
      segmentation: { size: [height, width], counts },
      attributes: [],
      metadata: { ...meta, area, tool_used: meta.tool_used ?? `auto-annotate:${this.backend}` },
    };
    // One upsert on the current version (or on base_version when given: 409 if it moved on).
    const saved = await saveChanges(this.ctx, userId, {
      image_id: image.id,
      project_id: image.projectId,
      image_filename: image.filename,
      base_version: req.base_version,
      upserts: [annotation],
      removed_ids: [],
    });
    return { status: 'success' as const, annotation, version: saved.version, new_count: saved.new_count };
  }

  close(): void {
    this.cache.close();
    this.lookups.clear();
    this.previous.clear();
    this.previousBytes = 0;
    void this.segmenter?.close?.();
  }
}
