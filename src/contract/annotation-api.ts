// Request and response schemas of the annotation calls (/api/v1/annotations, spec section 7
// "Annotations", ARCHITECTURE.md "API details the spec leaves open"). The stored annotation itself
// is validated with src/contract/annotations.ts; a save's `annotations` is taken as a list of
// anything here and checked annotation by annotation by the server, so the error names the index
// and id of the bad one.
import { z } from 'zod';
import { ImageStatus } from './images';
import { storedText } from './text';
import { MAX_ANNOTATION_ID_LENGTH } from './annotations';

/** Largest save-data / save body the server reads. Bigger answers 413. */
export const MAX_SAVE_BYTES = 8 * 1024 * 1024;
/** Largest batch-save-data body. */
export const MAX_BATCH_SAVE_BYTES = 16 * 1024 * 1024;
/** Saves in one batch-save-data call. */
export const MAX_BATCH_SAVES = 100;

const uuid = (what: string) => z.string().uuid(`${what} must be a UUID`);

/** The largest version number: PostgreSQL's integer, what the version columns hold (a larger one answered 500). */
export const MAX_VERSION = 2_147_483_647;
/** A version in a body. */
const version = (what: string) => z.number().int(`${what} must be a whole number`).nonnegative(`${what} must not be negative`).max(MAX_VERSION, `${what} must be at most ${MAX_VERSION}`);
/**
 * A whole number in a query string, from `min` to `max`: decimal digits only. Number() also reads
 * '0x1', '+1', '1e0', '1.0' and ' 1' (and '' as 0), which a client never means as a version.
 */
const queryInt = (what: string, min: number, max: number) =>
  z
    .string()
    .regex(/^[0-9]{1,10}$/, `${what} must be a whole number written in decimal digits`)
    .transform(Number)
    .pipe(z.number().min(min, `${what} must be at least ${min}`).max(max, `${what} must be at most ${max}`));

export const ImageIdParams = z.object({ imageId: uuid('Image id') });
export const IdParams = z.object({ id: uuid('Image id') });
export const ProjectIdParams = z.object({ projectId: uuid('Project id') });

/** project_id is what the SPA sends; when given it must be the image's project (404 otherwise). */
export const LoadDataQuery = z.object({
  project_id: uuid('project_id').optional(),
  /** `columns`: the compact encoding of contract/annotation-columns.ts (`{format, count, version, saved_at, annotations: [blocks]}`), what the editor asks for. */
  encoding: z.enum(['columns'], { message: 'encoding must be columns (or left out)' }).optional(),
});

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
  image_filename: storedText(z.string().min(1, 'image_filename is required'), 'image_filename'),
  /** The version the client's list is based on. Absent: the save applies whatever the current version (last write wins). */
  base_version: version('base_version').optional(),
});
export type SaveDataRequest = z.infer<typeof SaveDataRequest>;

/** Changes only, on a known version: what a large document needs (a 100k-shape list is ~30 MB,
 * over MAX_SAVE_BYTES; its changes are a few shapes). Upserts replace the shape of the same id in
 * place or are appended; removed ids that are not there are ignored, so a retried save is harmless.
 * A stale base_version is a conflict (409 version_conflict) only when one of the ids it upserts or
 * removes was added, changed or removed after it; otherwise the change is applied on the current
 * version and the answer carries `rebased_from` and the skipped `changes` (SaveDataResponse). */
export const SaveChangesRequest = z.object({
  image_id: uuid('image_id'),
  project_id: uuid('project_id'),
  image_filename: storedText(z.string().min(1, 'image_filename is required'), 'image_filename'),
  /** Required: changes only mean something on the version they were made on. */
  base_version: version('base_version'),
  /** Checked one by one like save-data's annotations. */
  upserts: z.array(z.unknown()).default([]),
  removed_ids: z
    .array(storedText(z.string().min(1, 'removed_ids holds ids').max(MAX_ANNOTATION_ID_LENGTH, `An id must be at most ${MAX_ANNOTATION_ID_LENGTH} characters`), 'An id'))
    .default([]),
});
export type SaveChangesRequest = z.infer<typeof SaveChangesRequest>;

/** GET /annotations/changes/{imageId}?since=v: the net change from `since` to `version` (410 when the log no longer reaches back to `since`). */
export const ChangesResponse = z.object({
  since: z.number().int(),
  version: z.number().int(),
  /** When `version` was saved (null while never saved). */
  saved_at: z.string().nullable(),
  /** Shapes added or changed after `since`, as they are at `version`. Apply `removed_ids` first, then these: a changed shape keeps its place, a new one goes on top. */
  upserts: z.array(AnnotationValue),
  /** Ids removed after `since`. An id removed and added again is in both lists (it went on top); one added and removed in between may be listed too. */
  removed_ids: z.array(z.string()),
});
export type ChangesResponse = z.infer<typeof ChangesResponse>;

export const SaveDataResponse = z.object({
  success: z.literal(true),
  /** True when this save changed the image's status (new -> annotating). */
  status_updated: z.boolean(),
  status: ImageStatus,
  /** The image's annotation count after the save. */
  new_count: z.number().int(),
  /**
   * The version this save made. save-changes (and its batch entries) whose change is nothing
   * (every removed id absent, every upsert the stored shape) make none: `version` is then the
   * head as it was (`base_version`, or `rebased_from` when stale) and nothing else moved.
   */
  version: z.number().int(),
  /** When this version was saved (server clock, ISO 8601); for a save that made none, when the head was saved. */
  saved_at: z.string(),
  /**
   * save-changes (and its batch entries) only, when `base_version` was stale but none of the ids
   * it upserts or removes changed after it (a new id counts as unchanged while nobody else added
   * it): the save was applied on top of this version, the head at the time, and `version` is
   * `rebased_from + 1` (`rebased_from` itself when the save changed nothing). Absent when the
   * save was applied on `base_version` itself.
   */
  rebased_from: z.number().int().optional(),
  /**
   * With `rebased_from`: the net change from `base_version` to `rebased_from` that the client
   * skipped (`since` = base_version, `version` = rebased_from; same shape as GET changes). The
   * document at `version` is the client's base with these applied (removed_ids, then upserts),
   * then the save's own changes. Absent only when the change log could not be read back, then
   * load the document (or GET changes since base_version) to catch up.
   */
  changes: ChangesResponse.optional(),
});
export type SaveDataResponse = z.infer<typeof SaveDataResponse>;

/** Documents up to this many shapes come whole in a 409 (`current`); larger ones only as `changes`. */
export const CONFLICT_CURRENT_MAX_SHAPES = 1_000;

/**
 * The 409 body of a stale base_version: `changes` is what happened since the client's base (when
 * the change log reaches back that far); `current` is the whole document, sent while it holds at
 * most CONFLICT_CURRENT_MAX_SHAPES shapes or when `changes` cannot be given. At least one is there.
 */
export const VersionConflictBody = z.object({
  success: z.literal(false),
  code: z.literal('version_conflict'),
  error: z.string(),
  current: LoadDataResponse.optional(),
  changes: ChangesResponse.optional(),
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
  /** A saved change-only entry applied on a newer version than its stale base (as SaveDataResponse.rebased_from); `changes` then holds what it skipped. */
  rebased_from: z.number().int().optional(),
  error: z.string().optional(),
  code: z.string().optional(),
  current: LoadDataResponse.optional(),
  /** A conflict: what changed since the entry's base (as the 409's). A rebased save: the net change from its base to `rebased_from`. */
  changes: ChangesResponse.optional(),
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

export const ANNOTATION_KINDS = ['box', 'polygon', 'polyline', 'keypoint', 'segmentation', 'skeleton'] as const;

export const AnnotationStatsResponse = z.object({
  project_id: z.string(),
  total_annotations: z.number().int(),
  by_type: z.object({ box: z.number().int(), polygon: z.number().int(), polyline: z.number().int(), keypoint: z.number().int(), segmentation: z.number().int(), skeleton: z.number().int() }),
  by_class: z.record(z.string(), z.number().int()),
  /** How many of those images have at least one shape of each class (issue 32: the Data tab's class panel). */
  images_by_class: z.record(z.string(), z.number().int()),
  images_with_annotations: z.number().int(),
  images_total: z.number().int(),
});
export type AnnotationStatsResponse = z.infer<typeof AnnotationStatsResponse>;

// --- change log (issue 14): every committed save is one version with what it changed.

export const ChangesQuery = z.object({
  /** The version the client holds; the answer carries what changed after it. */
  since: queryInt('since', 0, MAX_VERSION),
  project_id: uuid('project_id').optional(),
});


export const HistoryQuery = z.object({
  project_id: uuid('project_id').optional(),
  /** Entries older than this version (for paging back); default: from the newest. */
  before: queryInt('before', 1, MAX_VERSION).optional(),
  limit: queryInt('limit', 1, 200).default(50),
});

export const HistoryEntry = z.object({
  version: z.number().int(),
  saved_at: z.string(),
  user_id: z.string().nullable(),
  /** The saver's name (or e-mail) as the organization sees it; null for a deleted account. */
  user_name: z.string().nullable(),
  /** Shapes added, changed and removed by this version. */
  added: z.number().int(),
  changed: z.number().int(),
  removed: z.number().int(),
  /** Set when this version restored an earlier one. */
  restored_from: z.number().int().nullable(),
  /** Present (true) when this version is a reviewer's merge of an overlapped image's drafts (issue 36 §3, contract/consensus.ts). */
  merged: z.literal(true).optional(),
});
export type HistoryEntry = z.infer<typeof HistoryEntry>;

/** GET /annotations/history/{imageId}: newest first. `oldest_version` is the first version whose state can still be looked at. */
export const HistoryResponse = z.object({
  version: z.number().int(),
  oldest_version: z.number().int(),
  entries: z.array(HistoryEntry),
});
export type HistoryResponse = z.infer<typeof HistoryResponse>;

export const VersionQuery = z.object({
  version: queryInt('version', 0, MAX_VERSION),
  project_id: uuid('project_id').optional(),
});

/** POST /annotations/restore: makes the annotations of `version` current again, as a new version. */
export const RestoreRequest = z.object({
  image_id: uuid('image_id'),
  project_id: uuid('project_id'),
  version: version('version'),
  /** When given, 409 if the image moved past it (the same rule as a save). */
  base_version: version('base_version').optional(),
});
export type RestoreRequest = z.infer<typeof RestoreRequest>;
