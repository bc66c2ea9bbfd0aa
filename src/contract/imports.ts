// Dataset import (issue 17): POST /api/v1/projects/{project_id}/imports reserves an upload of one
// archive (.zip) or annotation file (.json, .xml); POST /api/v1/imports/{id}/start queues it; GET
// /api/v1/imports/{id} reports its progress and, at the end, what it created, matched and skipped.
// POST /api/v1/imports/{id}/cancel cancels a queued import at once and asks a running one to stop.
import { z } from 'zod';
import { storedText } from './text';

export const IMPORT_FORMATS = ['coco', 'yolo', 'voc', 'cvat', 'vellum'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];
export const IMPORT_STATUSES = ['uploading', 'queued', 'running', 'done', 'failed', 'cancelled'] as const;
/** Statuses of an import that has ended: nothing more happens to it. */
export const ENDED_IMPORT_STATUSES = ['done', 'failed', 'cancelled'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

/** Largest archive accepted (streamed to disk, never held in memory). */
export const MAX_IMPORT_BYTES = 10 * 1024 * 1024 * 1024;
/** Zip-bomb limits: entries, total uncompressed bytes, and the ratio of one entry's uncompressed to compressed size. */
export const MAX_IMPORT_ENTRIES = 200_000;
export const MAX_IMPORT_UNCOMPRESSED_BYTES = 50 * 1024 * 1024 * 1024;
export const MAX_IMPORT_ENTRY_RATIO = 1000;
/** One annotation file (JSON, XML, TXT) inside the archive is read whole up to this size (COCO JSON is streamed). */
export const MAX_IMPORT_TEXT_BYTES = 512 * 1024 * 1024;
/** Runs of one imported mask, read (CVAT's counts) or written (COCO's column-major counts): more is refused, never walked. */
export const MAX_IMPORT_MASK_RUNS = 1_000_000;
/** Shapes imported per image; an image bringing more keeps the first ones and the report says how many were left out. */
export const MAX_SHAPES_PER_IMAGE = 10_000;
/** Nesting of JSON arrays / objects, XML elements and YAML collections in an imported file; deeper is refused, naming the file. */
export const MAX_IMPORT_NESTING = 100;
/** YAML aliases followed in one file (yaml's own guard against alias bombs). */
export const MAX_IMPORT_YAML_ALIASES = 100;
/** Skipped files and warnings listed in a report; the rest are counted. */
export const MAX_IMPORT_REPORT_ITEMS = 1000;

export const CreateImportRequest = z.object({
  filename: storedText(z.string().min(1, 'filename is required').max(1000), 'filename'),
  size: z.number().int('size must be a whole number of bytes').positive('size must be positive').max(MAX_IMPORT_BYTES, 'Archives may be at most 10 GB'),
  format: z.enum(['auto', ...IMPORT_FORMATS]).default('auto'),
  folder_path: storedText(z.string().max(1000), 'folder_path').optional(),
});
export type CreateImportRequest = z.infer<typeof CreateImportRequest>;

export const CreateImportResponse = z.object({
  import_id: z.string().uuid(),
  upload_url: z.string(),
  expires_at: z.string(),
});

export const ImportReport = z.object({
  images_created: z.number().int(),
  images_matched: z.number().int(),
  annotations_created: z.number().int(),
  classes_created: z.array(z.string()),
  skipped: z.array(z.object({ file: z.string(), reason: z.string() })),
  /** Skipped files beyond the listed ones. */
  skipped_more: z.number().int().default(0),
  warnings: z.array(z.string()),
  warnings_more: z.number().int().default(0),
});
export type ImportReport = z.infer<typeof ImportReport>;

export const ImportJob = z.object({
  import_id: z.string().uuid(),
  project_id: z.string().uuid(),
  filename: z.string(),
  status: z.enum(IMPORT_STATUSES),
  /**
   * Someone asked to cancel (POST /imports/{id}/cancel). While status is still 'running' the import
   * is stopping: it finishes the images it has in flight, writes its report, then becomes
   * 'cancelled' (the UI's "Cancelling..."). Only an ended status means the report is final.
   */
  cancel_requested: z.boolean(),
  /** The format asked for ('auto' until the content is read), then the one detected. */
  format: z.enum(['auto', ...IMPORT_FORMATS]),
  folder_path: z.string(),
  progress: z.object({ done: z.number().int(), total: z.number().int() }),
  report: ImportReport,
  error: z.string().optional(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type ImportJob = z.infer<typeof ImportJob>;

export const StartImportResponse = z.object({ import_id: z.string().uuid(), status: z.enum(IMPORT_STATUSES) });
export const ListImportsResponse = z.object({ imports: z.array(ImportJob) });

export function emptyImportReport(): ImportReport {
  return { images_created: 0, images_matched: 0, annotations_created: 0, classes_created: [], skipped: [], skipped_more: 0, warnings: [], warnings_more: 0 };
}
