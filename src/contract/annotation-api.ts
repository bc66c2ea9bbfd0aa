// Request and response schemas of the annotation calls (/api/v1/annotations, spec section 7
// "Annotations", ARCHITECTURE.md "API details the spec leaves open"). The stored annotation itself
// is validated with src/contract/annotations.ts; a save's `annotations` is taken as a list of
// anything here and checked annotation by annotation by the server, so the error names the index
// and id of the bad one.
import { z } from 'zod';
import { ImageStatus } from './images';

/** Largest save-data / save body the server reads. Bigger answers 413. */
export const MAX_SAVE_BYTES = 8 * 1024 * 1024;
/** Largest batch-save-data body. */
export const MAX_BATCH_SAVE_BYTES = 16 * 1024 * 1024;
/** Saves in one batch-save-data call. */
export const MAX_BATCH_SAVES = 100;

const uuid = (what: string) => z.string().uuid(`${what} must be a UUID`);

export const ImageIdParams = z.object({ imageId: uuid('Image id') });
export const IdParams = z.object({ id: uuid('Image id') });
export const ProjectIdParams = z.object({ projectId: uuid('Project id') });

/** project_id is what the SPA sends; when given it must be the image's project (404 otherwise). */
export const LoadDataQuery = z.object({ project_id: uuid('project_id').optional() });

/** An annotation as the server stores and returns it: the stored-annotation shape, unknown keys kept. */
const AnnotationValue = z.record(z.string(), z.unknown());

export const LoadDataResponse = z.object({
  annotations: z.array(AnnotationValue),
  /** 0 while nothing was ever saved; each save adds 1. */
  version: z.number().int(),
  /** When the current version was saved (server clock, ISO 8601); null while nothing was ever saved. Lets a client merging after a 409 tell which of two edits of one shape came later. */
  saved_at: z.string().nullable(),
});
export type LoadDataResponse = z.infer<typeof LoadDataResponse>;

export const SaveDataRequest = z.object({
  image_id: uuid('image_id'),
  project_id: uuid('project_id'),
  /** Checked one by one against StoredAnnotation (contract/annotations.ts) and the project's classes. */
  annotations: z.array(z.unknown()),
  /** Must be the image's filename. */
  image_filename: z.string().min(1, 'image_filename is required'),
  /** The version the client's list is based on. Absent: the save applies whatever the current version (last write wins). */
  base_version: z.number().int().nonnegative().optional(),
});
export type SaveDataRequest = z.infer<typeof SaveDataRequest>;

/** Changes only, on a known version: what a large document needs (a 100k-shape list is ~30 MB,
 * over MAX_SAVE_BYTES; its changes are a few shapes). Upserts replace the shape of the same id in
 * place or are appended; removed ids that are not there are ignored, so a retried save is harmless. */
export const SaveChangesRequest = z.object({
  image_id: uuid('image_id'),
  project_id: uuid('project_id'),
  image_filename: z.string().min(1, 'image_filename is required'),
  /** Required: changes only mean something on the version they were made on. */
  base_version: z.number().int().nonnegative(),
  /** Checked one by one like save-data's annotations. */
  upserts: z.array(z.unknown()).default([]),
  removed_ids: z.array(z.string().min(1, 'removed_ids holds ids')).default([]),
});
export type SaveChangesRequest = z.infer<typeof SaveChangesRequest>;

export const SaveDataResponse = z.object({
  success: z.literal(true),
  /** True when this save changed the image's status (new -> annotating). */
  status_updated: z.boolean(),
  status: ImageStatus,
  /** The image's annotation count after the save. */
  new_count: z.number().int(),
  version: z.number().int(),
  /** When this version was saved (server clock, ISO 8601). */
  saved_at: z.string(),
});
export type SaveDataResponse = z.infer<typeof SaveDataResponse>;

/** The 409 body of a stale base_version. */
export const VersionConflictBody = z.object({
  success: z.literal(false),
  code: z.literal('version_conflict'),
  error: z.string(),
  current: LoadDataResponse,
});
export type VersionConflictBody = z.infer<typeof VersionConflictBody>;

/** Each save is checked on its own, so one malformed entry fails alone. An entry with `annotations`
 * is a save-data; one with `upserts` / `removed_ids` is a save-changes. */
export const BatchSaveRequest = z.object({
  saves: z.array(z.unknown()).min(1, 'saves must hold at least one save').max(MAX_BATCH_SAVES, `At most ${MAX_BATCH_SAVES} saves per batch`),
});

export const BatchSaveResult = z.object({
  image_id: z.string().nullable(),
  status: z.enum(['saved', 'conflict', 'error']),
  version: z.number().int().optional(),
  saved_at: z.string().optional(),
  status_updated: z.boolean().optional(),
  /** The image's status after a saved entry (`status` above is the entry's outcome). */
  image_status: ImageStatus.optional(),
  new_count: z.number().int().optional(),
  error: z.string().optional(),
  code: z.string().optional(),
  current: LoadDataResponse.optional(),
});
export type BatchSaveResult = z.infer<typeof BatchSaveResult>;

export const BatchSaveResponse = z.object({
  success: z.literal(true),
  saved: z.number().int(),
  failed: z.number().int(),
  results: z.array(BatchSaveResult),
});

/** PATCH /annotations/status: an explicit status, or {cycle: true} for new -> annotating -> complete -> new. */
export const AnnotationStatusRequest = z.union([
  z.object({ image_id: uuid('image_id'), project_id: uuid('project_id'), status: ImageStatus }).strict(),
  z.object({ image_id: uuid('image_id'), project_id: uuid('project_id'), cycle: z.literal(true) }).strict(),
]);

export const ANNOTATION_KINDS = ['box', 'polygon', 'polyline', 'keypoint', 'segmentation'] as const;

export const AnnotationStatsResponse = z.object({
  project_id: z.string(),
  total_annotations: z.number().int(),
  by_type: z.object({ box: z.number().int(), polygon: z.number().int(), polyline: z.number().int(), keypoint: z.number().int(), segmentation: z.number().int() }),
  by_class: z.record(z.string(), z.number().int()),
  images_with_annotations: z.number().int(),
  images_total: z.number().int(),
});
export type AnnotationStatsResponse = z.infer<typeof AnnotationStatsResponse>;
