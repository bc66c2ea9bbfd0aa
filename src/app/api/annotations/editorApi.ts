// The calls the editor screen makes (spec section 7: Images, Annotations). Saving goes through the
// save manager (src/app/sync/save); the only write here is a restore of an earlier version (issue 14), which
// the screen makes after the manager has flushed this image's pending changes.
import { HistoryResponse, LoadDataResponse, SaveDataResponse } from '../../../contract/annotation-api';
import { ImageResponse, SignedUrlResponse, type Image } from '../../../contract/images';
import type { StoredAnnotation } from '../../../contract/annotations';
import { z } from 'zod';
import { request, requestText } from '../client';
import { parseJsonInSlices, type SliceOptions } from './sliceJson';
import { columnsCount, decodeBlocks, shapeProgress } from './columnBlocks';
import type { ColumnBlock } from '../../../contract/annotation-columns';
import { ImageTiles } from '../../../contract/tiles';
import {
  GetMaskResponse,
  ProcessImageResponse,
  SegmentationHealthResponse,
  SegmentationWarmupResponse,
} from '../../../contract/segmentation';

const enc = encodeURIComponent;

export interface LoadedAnnotations {
  /** As the server sent them: the engine validates them as it loads (Editor.loadStoredAsync). */
  annotations: StoredAnnotation[];
  version: number;
  /** When the server saved this version (the save manager's merge compares edit times). */
  saved_at?: string | null;
}

const LoadDataEnvelope = LoadDataResponse.extend({ annotations: z.array(z.unknown()) });

/**
 * A load-data body, parsed in slices (100k annotations are 8-40 MB of JSON: one JSON.parse would
 * block the main thread for up to a second). Undefined when `options.isCancelled` said so.
 */
export async function parseLoadData(text: string, options: SliceOptions = {}): Promise<LoadedAnnotations | undefined> {
  // The column encoding (?encoding=columns) parses the same way, then its blocks are decoded.
  const count = columnsCount(text);
  const json = await parseJsonInSlices(text, 'annotations', count === null ? options : shapeProgress(count, options));
  if (json === undefined) return undefined;
  const body = (json && typeof json === 'object' ? json : {}) as Record<string, unknown>;
  if (count !== null) {
    const annotations = await decodeBlocks(Array.isArray(body.annotations) ? (body.annotations as ColumnBlock[]) : [], options);
    if (annotations === undefined) return undefined;
    body.annotations = annotations;
  }
  // The envelope only: each annotation is checked by the engine, in slices too.
  const envelope = LoadDataEnvelope.safeParse({ ...body, annotations: [] });
  if (!envelope.success) console.warn('Unexpected response shape for GET /annotations/load-data', envelope.error.issues);
  return { annotations: body.annotations as StoredAnnotation[], version: body.version as number, saved_at: body.saved_at as string | null | undefined };
}

export const editorApi = {
  getImage: async (imageId: string, orgId: string): Promise<Image> =>
    (await request('GET', `/images/${enc(imageId)}?org_id=${enc(orgId)}`, ImageResponse)).image,

  /** load-data's body as text, for parseLoadData: in the column encoding, which travels in about 60% of the plain JSON's bytes. */
  loadDataText: (imageId: string, projectId: string): Promise<string> => requestText(`/annotations/load-data/${enc(imageId)}?project_id=${enc(projectId)}&encoding=columns`),

  loadData: async (imageId: string, projectId: string): Promise<LoadedAnnotations> =>
    (await parseLoadData(await editorApi.loadDataText(imageId, projectId)))!,

  /** The image's versions, newest first: `before` pages back (versions older than it). */
  history: (imageId: string, projectId: string, opts: { before?: number; limit?: number } = {}, signal?: AbortSignal) => {
    const q = new URLSearchParams({ project_id: projectId });
    if (opts.before !== undefined) q.set('before', String(opts.before));
    if (opts.limit !== undefined) q.set('limit', String(opts.limit));
    return request('GET', `/annotations/history/${enc(imageId)}?${q}`, HistoryResponse, undefined, { signal });
  },

  /** The annotations as they were at `version` (read only), parsed in slices like load-data's. 410 history_expired when no longer kept. */
  loadVersion: async (imageId: string, projectId: string, version: number, options: SliceOptions & { signal?: AbortSignal } = {}): Promise<LoadedAnnotations | undefined> => {
    const { signal, ...slices } = options;
    const text = await requestText(`/annotations/version/${enc(imageId)}?version=${version}&project_id=${enc(projectId)}`, { signal });
    return parseLoadData(text, slices);
  },

  /** Makes `version` the current annotations again, as a new version; 409 version_conflict when the image moved past `baseVersion`. */
  restore: (imageId: string, projectId: string, version: number, baseVersion: number) =>
    request('POST', '/annotations/restore', SaveDataResponse, { image_id: imageId, project_id: projectId, version, base_version: baseVersion }),

  /** The tile pyramid of a large image (none for one small enough to draw whole). */
  tiles: (imageId: string, orgId: string) => request('GET', `/images/${enc(imageId)}/tiles?org_id=${enc(orgId)}`, ImageTiles),

  originalUrl: async (imageId: string, orgId: string): Promise<string> =>
    (await request('GET', `/images/${enc(imageId)}/signed-url?org_id=${enc(orgId)}&variant=original&expiration_minutes=60`, SignedUrlResponse)).signed_url,

  // Assisted segmentation (spec section 7).
  segWarmup: (orgId: string) => request('POST', `/auto-annotate/sam2/warmup?org_id=${enc(orgId)}`, SegmentationWarmupResponse),
  segHealth: (orgId: string) => request('GET', `/auto-annotate/sam2/health?org_id=${enc(orgId)}`, SegmentationHealthResponse),
  segProcess: (projectId: string, imageName: string) =>
    request('POST', '/auto-annotate/sam2/process-image', ProcessImageResponse, { project_id: projectId, image_name: imageName }),
  /** A mask for points and / or a box ([x, y, width, height]; points are optional with it). */
  segMask: (projectId: string, imageName: string, prompt: { positive: [number, number][]; negative: [number, number][]; box?: [number, number, number, number] }, usePrevious: boolean, signal: AbortSignal, tolerance?: number) =>
    request(
      'POST',
      '/auto-annotate/sam2/get-mask',
      GetMaskResponse,
      {
        project_id: projectId,
        image_name: imageName,
        positive_points: prompt.positive,
        negative_points: prompt.negative,
        use_previous_mask: usePrevious,
        ...(prompt.box ? { box: prompt.box } : {}),
        ...(tolerance !== undefined ? { tolerance } : {}),
      },
      { signal },
    ),
};
