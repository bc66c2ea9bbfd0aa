// Dataset export (spec sections 3 "Export options", 5, 7 "Annotations" export call, 9):
// POST /api/v1/annotations/export answers a zip, streamed. See src/server/services/export/.
import { z } from 'zod';
import { ListImagesQuery, MAX_BATCH_IDS } from './images';
import { storedText } from './text';

/** vellum (lossless), coco (annotations.json), yolo (Ultralytics data.yaml, images/, labels/), voc (Pascal VOC XML). */
export const EXPORT_FORMATS = ['vellum', 'coco', 'yolo', 'voc'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
/**
 * selected: image_ids (archived or not); all_complete: complete and not archived; all: every image
 * not archived, in every folder; current_filters: the images list's filters (`filters`).
 */
export const EXPORT_SCOPES = ['selected', 'all_complete', 'current_filters', 'all'] as const;
export type ExportScope = (typeof EXPORT_SCOPES)[number];
export const DEFAULT_EXPORT_FORMAT: ExportFormat = 'vellum';
export const DEFAULT_EXPORT_SCOPE: ExportScope = 'all_complete';
export const MAX_EXPORT_NAME_LENGTH = 200;

/**
 * The images-list filters of the Data view, as `current_filters` applies them (same meaning as GET
 * /projects/{id}/images: folder_path is that one folder, absent every folder), and
 * include_subfolders: folder_path and every folder inside it (default false, the list's meaning).
 */
export const ExportFilters = ListImagesQuery.pick({
  folder_path: true,
  status: true,
  search: true,
  is_archived: true,
  mime_type: true,
  min_file_size: true,
  max_file_size: true,
  class: true,
  has_annotations: true,
  min_annotations: true,
  max_annotations: true,
}).extend({ include_subfolders: z.boolean().optional() });
export type ExportFilters = z.infer<typeof ExportFilters>;

/** The splits an export can be divided into, in layout order. */
export const SPLIT_NAMES = ['train', 'val', 'test'] as const;
export type SplitName = (typeof SPLIT_NAMES)[number];
/** The sum of a split's fractions may differ from 1 by this much. */
export const SPLIT_SUM_TOLERANCE = 1e-6;

/**
 * A train/val/test split: fractions of the exported images (each 0..1, summing to 1 within
 * SPLIT_SUM_TOLERANCE, else 400 invalid_split, checked by the export service so the code is that
 * one); the same seed and images always give the same split; stratify (default true) spreads every
 * class over every split when it has enough images.
 */
export const ExportSplit = z.object({
  train: z.number().finite(),
  val: z.number().finite(),
  test: z.number().finite().optional(),
  seed: z.number().int().min(0).max(2 ** 31 - 1).optional(),
  stratify: z.boolean().optional(),
});
export type ExportSplit = z.infer<typeof ExportSplit>;

/** YOLO labels: `detect` one box per shape, `segment` polygons (boxes as their 4 corners), `pose` skeletons with their keypoints (kpt_shape). */
export const YOLO_TASKS = ['detect', 'segment', 'pose'] as const;
export type YoloTask = (typeof YOLO_TASKS)[number];
/** COCO masks: as RLE (default) or traced into polygons. */
export const MASK_FORMATS = ['rle', 'polygon'] as const;
export type MaskFormat = (typeof MASK_FORMATS)[number];

export const ExportRequest = z.object({
  project_id: z.string().uuid('project_id must be a UUID'),
  /** The selection. With no scope given, non-empty image_ids mean scope 'selected' (the SPA's call sends ids only). */
  image_ids: z.array(z.string().uuid('image ids must be UUIDs')).max(MAX_BATCH_IDS, `At most ${MAX_BATCH_IDS} images can be selected`).optional(),
  scope: z.enum(EXPORT_SCOPES).optional(),
  filters: ExportFilters.optional(),
  format: z.enum(EXPORT_FORMATS).default(DEFAULT_EXPORT_FORMAT),
  include_images: z.boolean().default(false),
  /** Class names to keep; absent or null: every class. An empty list is refused (nothing to export). */
  class_filter: z.array(z.string().max(500)).max(1000).nullable().optional(),
  /** Export name (file name `{name}_{format}.zip`); default: the project name. */
  name: storedText(z.string().max(MAX_EXPORT_NAME_LENGTH, `Export name must be at most ${MAX_EXPORT_NAME_LENGTH} characters`), 'Export name').optional(),
  /** Divide the images into train/val(/test); absent: one set, the layouts without splits. */
  split: ExportSplit.optional(),
  /** YOLO only; default `pose` when an exported class is a skeleton class, else `detect` when one is a box class, else `segment`. */
  yolo_task: z.enum(YOLO_TASKS).optional(),
  /** COCO only; default `rle`. */
  mask_format: z.enum(MASK_FORMATS).optional(),
  /** Issue 34: model predictions still pending (source.pending true) are left out unless this is true; accepted ones are always exported. */
  include_predictions: z.boolean().default(false),
  /** A random UUID naming this export for GET /annotations/export/progress (the dialog's progress). */
  progress_id: z.string().uuid('progress_id must be a UUID').optional(),
});
export type ExportRequest = z.infer<typeof ExportRequest>;

/** POST /api/v1/annotations/export/count: how many images the same request would export (before it starts). */
export const ExportCountResponse = z.object({ success: z.literal(true), scope: z.enum(EXPORT_SCOPES), image_count: z.number().int() });
export type ExportCountResponse = z.infer<typeof ExportCountResponse>;

/** GET /api/v1/annotations/export/progress: a running export's images written (the dialog polls it). */
export const ExportProgressQuery = z.object({ project_id: z.string().uuid('project_id must be a UUID'), progress_id: z.string().uuid('progress_id must be a UUID') });
export const EXPORT_PROGRESS_STATES = ['running', 'done', 'cancelled', 'failed', 'unknown'] as const;
export type ExportProgressState = (typeof EXPORT_PROGRESS_STATES)[number];
export const ExportProgressResponse = z.object({
  success: z.literal(true),
  /** unknown: no export of that id in this project on this server (not started, long ended, or another process). */
  state: z.enum(EXPORT_PROGRESS_STATES),
  images_written: z.number().int(),
  image_count: z.number().int().nullable(),
});
export type ExportProgressResponse = z.infer<typeof ExportProgressResponse>;

/** Stored in vellum.json; bump when the layout changes incompatibly. */
export const VELLUM_EXPORT_VERSION = 1;
