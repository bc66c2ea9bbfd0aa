// Images of a project: the upload flow, listing, stages, signed URLs and batch calls
// (spec sections 3, 4 "Image status" and "Archive", 7 "Images" and "Batch images", 9).
import { z } from 'zod';
import { storedText, withoutUnstorable } from './text';

/** The stages of the pipeline, in order (issue 29): Not started, In progress, In review, Done. */
export const IMAGE_STATUSES = ['new', 'annotating', 'review', 'complete'] as const;
export const ImageStatus = z.enum(IMAGE_STATUSES);
export type ImageStatus = z.infer<typeof ImageStatus>;

/** Single-image cycle (spec section 4, issue 29): new -> annotating -> review -> complete -> new. */
export function nextStatus(status: ImageStatus): ImageStatus {
  const i = IMAGE_STATUSES.indexOf(status);
  return IMAGE_STATUSES[(i + 1) % IMAGE_STATUSES.length]!;
}

/** The stored mime types, one per real format, detected from the file's bytes. */
export const IMAGE_MIME_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/bmp', 'image/svg+xml'] as const;
export type ImageMimeType = (typeof IMAGE_MIME_TYPES)[number];
/** File extension (lower case, no dot) -> the format it announces. */
export const EXTENSION_MIME: Readonly<Record<string, ImageMimeType>> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  jpe: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  bmp: 'image/bmp',
  svg: 'image/svg+xml',
};

/** Largest upload, signed into every upload URL. */
export const MAX_UPLOAD_BYTES = 200 * 1024 * 1024;
/** Largest image accepted: 20000 x 20000 pixels (400 Mpx). Anything larger is refused as a decompression bomb (413). */
export const MAX_IMAGE_PIXELS = 20_000 * 20_000;
/** SVG is parsed as text in full: a smaller cap than raster files. */
export const MAX_SVG_BYTES = 10 * 1024 * 1024;
/** Thumbnails: WebP, longest side this many pixels. */
export const THUMBNAIL_SIZE = 384;
export const MAX_FILENAME_LENGTH = 200;
/** A name's UTF-8 bytes, with room for the ".webp" a thumbnail adds within a file system's 255. */
export const MAX_FILENAME_BYTES = 240;
export const DEFAULT_UPLOAD_EXPIRY_MINUTES = 15;
export const DEFAULT_SIGNED_URL_EXPIRY_MINUTES = 60;
export const MAX_EXPIRY_MINUTES = 7 * 24 * 60;
export const MAX_PAGE_SIZE = 10_000;
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_BATCH_IDS = 10_000;
export const MAX_SIGNED_URL_IDS = 500;
export const MAX_BATCH_UPLOAD_FILES = 1000;

/** Lower-case extension without the dot, '' when none. */
export function extensionOf(filename: string): string {
  const dot = filename.lastIndexOf('.');
  return dot > 0 ? filename.slice(dot + 1).toLowerCase() : '';
}

// Control characters (C0, DEL, C1) and bidirectional overrides that can disguise an extension.
// eslint-disable-next-line no-control-regex
const UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\ufeff]/g;
// Characters that break paths, URLs or archives on some platform.
const RESERVED_CHARS = /[<>:"|?*#%\\/]/g;

/**
 * A filename safe as the last segment of an object key and in a URL: the base name only (no folders,
 * no traversal), no control characters or unpaired surrogates, at most MAX_FILENAME_LENGTH characters and MAX_FILENAME_BYTES bytes with the extension kept.
 * Returns '' when nothing usable is left.
 */
export function sanitizeFilename(input: string): string {
  let name = withoutUnstorable(input).normalize('NFC');
  name = name.split(/[/\\]/).pop() ?? '';
  name = name.replace(UNSAFE_CHARS, '').replace(RESERVED_CHARS, '_').replace(/\s+/g, ' ').trim();
  name = name.replace(/^[.\s]+/, '');
  if (name === '') return '';
  if (Array.from(name).length > MAX_FILENAME_LENGTH || utf8Length(name) > MAX_FILENAME_BYTES) {
    const dot = name.lastIndexOf('.');
    const keep = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
    name = fitFilename(keep ? name.slice(0, dot) : name, keep);
  }
  return name;
}

const utf8Length = (s: string) => new TextEncoder().encode(s).length;

/**
 * `stem` cut by whole characters so that stem + ending is at most MAX_FILENAME_LENGTH characters and
 * MAX_FILENAME_BYTES bytes of UTF-8 (a file system takes 255 bytes a name, and the thumbnail adds
 * ".webp": 200 CJK characters would be 600).
 */
export function fitFilename(stem: string, ending: string): string {
  const chars = Array.from(stem).slice(0, Math.max(0, MAX_FILENAME_LENGTH - Array.from(ending).length));
  let bytes = utf8Length(chars.join('') + ending);
  while (bytes > MAX_FILENAME_BYTES && chars.length > 0) bytes -= utf8Length(chars.pop()!);
  return chars.join('').trimEnd() + ending;
}

/** The mime type a filename's extension announces, or null when it is not an accepted image type. */
export function mimeForFilename(filename: string): ImageMimeType | null {
  return EXTENSION_MIME[extensionOf(filename)] ?? null;
}

/** The canonical mime type for an upload content type (image/jpg -> image/jpeg). */
export function canonicalMime(contentType: string): ImageMimeType | null {
  const t = contentType.split(';')[0].trim().toLowerCase();
  if (t === 'image/jpg' || t === 'image/pjpeg') return 'image/jpeg';
  if (t === 'image/x-ms-bmp' || t === 'image/x-bmp') return 'image/bmp';
  return (IMAGE_MIME_TYPES as readonly string[]).includes(t) ? (t as ImageMimeType) : null;
}

const uuid = (what: string) => z.string().uuid(`${what} must be a UUID`);
const Expiry = (fallback: number) => z.coerce.number().int().min(1).max(MAX_EXPIRY_MINUTES, `expiration_minutes must be at most ${MAX_EXPIRY_MINUTES}`).default(fallback);
/** '' and absent mean the same in a query string. */
const blankToUndefined = (v: unknown) => (v === '' || v === null ? undefined : v);

export const Image = z.object({
  id: z.string(),
  project_id: z.string(),
  organization_id: z.string(),
  filename: z.string(),
  gcs_uri: z.string(),
  gcs_path: z.string(),
  status: ImageStatus,
  virtual_folder_path: z.string(),
  /** The folder's id, null at the root ('/'). */
  folder_id: z.string().nullable(),
  file_size: z.number(),
  mime_type: z.string(),
  image_width: z.number().nullable(),
  image_height: z.number().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  annotation_count: z.number(),
  is_archived: z.boolean(),
  is_edited: z.boolean(),
  /** Object key of the WebP thumbnail (null when none could be made); sign it with variant=thumbnail. */
  thumbnail_path: z.string().nullable(),
  /** Who annotates it (issue 29), null when nobody. */
  assignee_id: z.string().nullable(),
  /** Who reviews it (issue 29), null when nobody. */
  reviewer_id: z.string().nullable(),
  /** Issues of the image still open (issue 29). */
  open_issues: z.number(),
  /** Model predictions on the image still waiting to be accepted or rejected (issue 34). */
  pending_predictions: z.number(),
  /** How many different annotators the image goes to (issue 36 §3, consensus): 1 for a normal image, 2..5 when overlapped. */
  overlap: z.number().int(),
});
export type Image = z.infer<typeof Image>;

export const OrgQuery = z.object({ org_id: uuid('org_id').optional() });

export const CheckFilenameRequest = z.object({ filename: z.string().min(1, 'filename is required').max(1000) });
export const CheckFilenameResponse = z.object({ unique_filename: z.string(), original_filename: z.string(), changed: z.boolean() });

export const UploadDescriptor = z.object({
  filename: storedText(z.string().min(1, 'filename is required').max(1000), 'filename'),
  content_type: z.string().min(1, 'content_type is required').max(255),
  folder_path: z.string().max(2000).default('/'),
});
export type UploadDescriptor = z.infer<typeof UploadDescriptor>;

export const UploadUrlRequest = UploadDescriptor.extend({ expiration_minutes: Expiry(DEFAULT_UPLOAD_EXPIRY_MINUTES) });
export const UploadUrlResult = z.object({
  upload_url: z.string(),
  gcs_uri: z.string(),
  gcs_path: z.string(),
  gcs_bucket: z.string(),
  filename: z.string(),
  content_type: z.string(),
  folder_path: z.string(),
  max_bytes: z.number(),
  expires_at: z.string(),
});
export type UploadUrlResult = z.infer<typeof UploadUrlResult>;

export const BatchUploadUrlsRequest = z.object({
  // Items are checked one by one, so one bad file lands in `failed` instead of failing the batch.
  files: z
    .array(z.object({ filename: z.string().max(1000), content_type: z.string().max(255), folder_path: z.string().max(2000).default('/') }))
    .min(1, 'files must not be empty')
    .max(MAX_BATCH_UPLOAD_FILES, `At most ${MAX_BATCH_UPLOAD_FILES} files per call`),
  expiration_minutes: Expiry(DEFAULT_UPLOAD_EXPIRY_MINUTES),
});
export const BatchUploadUrlsResponse = z.object({
  urls: z.array(UploadUrlResult),
  failed: z.array(z.object({ filename: z.string(), error: z.string(), code: z.string() })),
});

export const RegisterImageRequest = z.object({
  filename: storedText(z.string().min(1, 'filename is required').max(1000), 'filename'),
  // Where the client says it uploaded: when given they must name this project's object for the filename.
  gcs_bucket: z.string().max(100).optional(),
  gcs_path: z.string().max(2000).optional(),
  gcs_uri: z.string().max(2200).optional(),
  folder_path: z.string().max(2000).default('/'),
  // Informational only: the server measures the stored object itself.
  file_size: z.number().optional(),
  mime_type: z.string().max(255).optional(),
  width: z.number().nullish(),
  height: z.number().nullish(),
  /** Set by the image edit flow for generated copies. */
  is_edited: z.boolean().optional(),
});
export const RegisterImageResponse = z.object({ success: z.literal(true), image: Image });

const ARCHIVE_FILTER = ['true', 'false', 'all'] as const;
/** The list's assignee / reviewer filter: a user id, 'me' or 'none'. */
/** How many class names one list query can name, and how long each can be (the export's class_filter's limit). */
export const MAX_CLASS_FILTERS = 100;
export const MAX_CLASS_FILTER_LENGTH = 500;
const AnnotationCountBound = (what: string) =>
  z.preprocess(blankToUndefined, z.coerce.number({ error: `${what} must be a number` }).int(`${what} must be a whole number`).min(0, `${what} must be 0 or more`).optional());
const PersonFilter = (what: string) => z.union([z.literal('me'), z.literal('none'), uuid(what)], { error: `${what} must be a user id, 'me' or 'none'` });
export const LIST_SORT_FIELDS = ['created_at', 'updated_at', 'filename', 'file_size', 'annotation_count', 'status', 'mime_type'] as const;
export type ListSortField = (typeof LIST_SORT_FIELDS)[number];

export const ListImagesQuery = z.object({
  org_id: uuid('org_id').optional(),
  /** One folder only ('/' = the root). Absent: the whole project. */
  folder_path: z.preprocess(blankToUndefined, z.string().max(2000).optional()),
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE, `limit must be at most ${MAX_PAGE_SIZE}`).default(DEFAULT_PAGE_SIZE),
  /**
   * Keyset paging (issue 35 §3): the id of the last image of the previous page (its
   * pagination.nextCursor); the page is the `limit` images after it in the same filters and order,
   * and `page` only numbers it. Deep pages cost what page 1 costs instead of the OFFSET's skipped
   * rows. An image moved out of the filters still marks the place; one no longer in the project
   * (deleted) gives an empty page.
   */
  after: z.preprocess(blankToUndefined, uuid('after').optional()),
  sort_by: z.preprocess(blankToUndefined, z.enum(LIST_SORT_FIELDS).default('created_at')),
  sort_order: z.preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : blankToUndefined(v)), z.enum(['asc', 'desc']).default('desc')),
  status: z.preprocess((v) => (v === 'all' ? undefined : blankToUndefined(v)), ImageStatus.optional()),
  search: z.preprocess(blankToUndefined, storedText(z.string().max(200), 'search').optional()),
  /** 'false' (default: the Data view), 'true' (the Archive view) or 'all'. */
  is_archived: z.preprocess((v) => (typeof v === 'boolean' ? String(v) : blankToUndefined(v)), z.enum(ARCHIVE_FILTER).default('false')),
  mime_type: z.preprocess(blankToUndefined, z.string().max(100).optional()),
  min_file_size: z.preprocess(blankToUndefined, z.coerce.number().int().min(0).optional()),
  max_file_size: z.preprocess(blankToUndefined, z.coerce.number().int().min(0).optional()),
  /** A member's id, 'me' (the caller) or 'none' (unassigned). */
  assignee: z.preprocess(blankToUndefined, PersonFilter('assignee').optional()),
  reviewer: z.preprocess(blankToUndefined, PersonFilter('reviewer').optional()),
  has_open_issues: z.preprocess((v) => (typeof v === 'boolean' ? String(v) : blankToUndefined(v)), z.enum(['true', 'false']).optional()),
  /** 'true': images with a pending model prediction (issue 34); 'false': images with none. */
  has_pending_predictions: z.preprocess((v) => (typeof v === 'boolean' ? String(v) : blankToUndefined(v)), z.enum(['true', 'false']).optional()),
  /** Images having any of these classes (the query repeats `class=`); an unknown class matches nothing. */
  class: z.preprocess(
    (v) => (v === undefined || v === null || v === '' ? undefined : Array.isArray(v) ? v : [v]),
    z.array(storedText(z.string().min(1, 'class must not be empty').max(MAX_CLASS_FILTER_LENGTH), 'class')).max(MAX_CLASS_FILTERS, `At most ${MAX_CLASS_FILTERS} classes`).optional(),
  ),
  /** 'true': images with at least one annotation; 'false': images with none. */
  has_annotations: z.preprocess((v) => (typeof v === 'boolean' ? String(v) : blankToUndefined(v)), z.enum(['true', 'false']).optional()),
  /** Annotations on the image, inclusive; min above max is a 400 invalid_annotation_range. */
  min_annotations: AnnotationCountBound('min_annotations'),
  max_annotations: AnnotationCountBound('max_annotations'),
});
export type ListImagesQuery = z.infer<typeof ListImagesQuery>;

/**
 * The default of LIST_TOTAL_CAP: a list that would count its matching images one by one stops here.
 * 1,000: counting 1,001 rows of several classes took 1.5 ms in the database on 100k images against
 * 28 ms p95 for 10,001 (docs/performance/image-list.md), and the Data tab shows one page of 200 at a time.
 */
export const DEFAULT_LIST_TOTAL_CAP = 1_000;

export const Pagination = z.object({
  page: z.number(),
  limit: z.number(),
  /** With totalCapped, the pages known to exist (hasNext says whether more follow). */
  totalPages: z.number(),
  /** The matching images; with totalCapped, a lower bound ("1,000+"). */
  totalItems: z.number(),
  /**
   * true: the count stopped at the server's cap (LIST_TOTAL_CAP, 1,000 by default) and more images
   * match than totalItems says; page on with hasNext, and the last page is not known until it is
   * reached (that page answers the exact total). false (or absent, from an older server): exact.
   */
  totalCapped: z.boolean(),
  hasNext: z.boolean(),
  /** With hasNext, the `after` of the next page (the id of this page's last image); null on the last page. Absent from an older server. */
  nextCursor: z.string().nullable().optional(),
  hasPrev: z.boolean(),
});
export const ListImagesResponse = z.object({ images: z.array(Image), pagination: Pagination });

export const ImageResponse = z.object({ success: z.literal(true), image: Image });

export const UpdateStatusRequest = z.union([
  z.object({ status: ImageStatus }).strict(),
  z.object({ cycle: z.literal(true) }).strict(),
]);
export const UpdateStatusResponse = z.object({ success: z.literal(true), image: Image, previous_status: ImageStatus });

/** No body (or no image_ids): every archived image of the project. */
export const DeleteImagesRequest = z.preprocess((v) => v ?? {}, z.object({ image_ids: z.array(uuid('image id')).max(MAX_BATCH_IDS).optional() }));
export const DeleteImagesResponse = z.object({
  success: z.literal(true),
  deleted: z.number(),
  deleted_ids: z.array(z.string()),
  skipped_ids: z.array(z.string()),
  files_deleted: z.number(),
});

export const SIGNED_URL_VARIANTS = ['original', 'thumbnail'] as const;
export const SignedUrlQuery = z.object({
  org_id: uuid('org_id').optional(),
  expiration_minutes: Expiry(DEFAULT_SIGNED_URL_EXPIRY_MINUTES),
  variant: z.enum(SIGNED_URL_VARIANTS).default('original'),
});
export const SignedUrlResponse = z.object({ signed_url: z.string(), expires_at: z.string(), variant: z.enum(SIGNED_URL_VARIANTS) });

export const BatchSignedUrlsRequest = z.object({
  image_ids: z.array(uuid('image id')).min(1, 'image_ids must not be empty').max(MAX_SIGNED_URL_IDS, `At most ${MAX_SIGNED_URL_IDS} image ids per call`),
  expiration_minutes: Expiry(DEFAULT_SIGNED_URL_EXPIRY_MINUTES),
  variant: z.enum(SIGNED_URL_VARIANTS).default('original'),
});
export const BatchSignedUrlsResponse = z.object({
  /** id -> URL for every id asked (an image of another organization answers 404; ids of no image are in missing_ids). */
  signed_urls: z.record(z.string(), z.string()),
  expires_at: z.string(),
  missing_ids: z.array(z.string()),
});

export const ImageMetadataEntry = z.object({
  id: z.string(),
  filename: z.string(),
  width: z.number().nullable(),
  height: z.number().nullable(),
  gcs_uri: z.string(),
  gcs_path: z.string(),
  mime_type: z.string(),
  file_size: z.number(),
  status: ImageStatus,
  virtual_folder_path: z.string(),
  is_archived: z.boolean(),
});
export const BatchImageMetadataResponse = z.object({ status: z.literal('success'), image_metadata: z.record(z.string(), ImageMetadataEntry) });

// --- batch images (/api/images/batch)

const BatchIds = z.array(uuid('image id')).min(1, 'image_ids must not be empty').max(MAX_BATCH_IDS, `At most ${MAX_BATCH_IDS} image ids per call`);

export const BatchMoveRequest = z.object({ image_ids: BatchIds, target_folder_path: z.string().max(2000), project_id: uuid('project_id') });
export const BatchMoveResponse = z.object({ success: z.literal(true), moved: z.number(), target_folder_path: z.string(), skipped_ids: z.array(z.string()) });

export const BatchUpdateRequest = z.object({
  image_ids: BatchIds,
  project_id: uuid('project_id'),
  updates: z
    .object({
      status: ImageStatus.optional(),
      is_archived: z.boolean().optional(),
      /** No explicit status: cycle the first image's status and give it to all (spec section 4). */
      cycle: z.literal(true).optional(),
    })
    .strict()
    .refine((u) => u.status !== undefined || u.is_archived !== undefined || u.cycle, 'updates must hold status, is_archived or cycle')
    .refine((u) => !(u.status !== undefined && u.cycle), 'updates cannot hold both status and cycle'),
});
export const BatchUpdateResponse = z.object({
  success: z.literal(true),
  updated: z.number(),
  status: ImageStatus.nullable(),
  skipped_ids: z.array(z.string()),
});

export const BatchDeleteRequest = z.object({ image_ids: BatchIds, project_id: uuid('project_id'), delete_gcs_files: z.boolean().default(true) });
export const BatchDeleteResponse = DeleteImagesResponse;
