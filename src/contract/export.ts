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
}).extend({ include_subfolders: z.boolean().optional() });
export type ExportFilters = z.infer<typeof ExportFilters>;

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
});
export type ExportRequest = z.infer<typeof ExportRequest>;

/** POST /api/v1/annotations/export/count: how many images the same request would export (before it starts). */
export const ExportCountResponse = z.object({ success: z.literal(true), scope: z.enum(EXPORT_SCOPES), image_count: z.number().int() });
export type ExportCountResponse = z.infer<typeof ExportCountResponse>;

/** Stored in vellum.json; bump when the layout changes incompatibly. */
export const VELLUM_EXPORT_VERSION = 1;
