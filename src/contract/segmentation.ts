// Assisted segmentation (/api/v1/auto-annotate/sam2/..., spec section 7 "Assisted segmentation",
// section 3 "Assisted-segmentation mask result"). Coordinates are image pixels of the original
// image, origin top-left; times are seconds.
import { z } from 'zod';
import { checkStorable, storedText } from './text';

/** Points per get-mask call (positive and negative together). More answers 400 too_many_points. */
export const MAX_POINTS = 100;

const uuid = (what: string) => z.string().uuid(`${what} must be a UUID`);
const coord = z.number().finite('Coordinates must be finite numbers');

/** A point as [x, y] or {x, y}. */
export const SegmentationPoint = z.union([z.tuple([coord, coord]), z.object({ x: coord, y: coord })]);
export type SegmentationPoint = z.infer<typeof SegmentationPoint>;

const ImageRef = {
  project_id: uuid('project_id'),
  /** The image's filename in the project. */
  image_name: storedText(z.string().min(1, 'image_name is required').max(1024), 'image_name'),
  /** Accepted for compatibility; the server finds the file from project_id and image_name. */
  gcs_uri: z.string().max(2048).optional(),
};

export const SegmenterBackend = z.enum(['builtin', 'sam2']);
export type SegmenterBackend = z.infer<typeof SegmenterBackend>;

export const SegmentationWarmupResponse = z.object({
  status: z.enum(['ready', 'warming', 'failed']),
  backend: SegmenterBackend,
  error: z.string().optional(),
});

export const SegmentationHealthResponse = z.object({
  /** 'healthy' once the backend is loaded and can answer; 'starting' while it loads. */
  status: z.enum(['healthy', 'starting', 'unhealthy']),
  backend: SegmenterBackend,
  model_loaded: z.boolean(),
  error: z.string().optional(),
  cache: z.object({ entries: z.number().int(), bytes: z.number().int(), max_bytes: z.number().int() }),
});

export const ProcessImageRequest = z.object(ImageRef);
export type ProcessImageRequest = z.infer<typeof ProcessImageRequest>;

export const ProcessImageResponse = z.object({
  /** 'already_loaded' when the image's embedding was cached (or being computed by another request). */
  status: z.enum(['success', 'already_loaded']),
  /** Original image size in pixels. */
  size: z.object({ width: z.number().int(), height: z.number().int() }),
  /** Seconds the embedding took to compute (for already_loaded: when it was computed). */
  embedding_time: z.number(),
  backend: SegmenterBackend,
});

export const GetMaskRequest = z.object({
  ...ImageRef,
  /** The latest click; added as a positive point when it is in neither list. */
  x: coord.optional(),
  y: coord.optional(),
  positive_points: z.array(SegmentationPoint).max(10_000).default([]),
  negative_points: z.array(SegmentationPoint).max(10_000).default([]),
  /** Start from this user's previous mask of the image (keeps corrections stable). */
  use_previous_mask: z.boolean().default(false),
  /**
   * A box around the object, [x, y, width, height] in image pixels: the mask stays inside it.
   * With a box, points are optional (they refine it).
   */
  box: z.tuple([coord, coord, coord, coord]).optional(),
  /** How far (pixels) the returned polygons may stray from the mask's edge (Douglas-Peucker); 1 when absent, the kernels' MASK_POLYGON_TOLERANCE as in the export. */
  tolerance: z.number().finite('tolerance must be a number').min(0, 'tolerance must be 0 or more').max(100, 'tolerance must be at most 100').optional(),
});
export type GetMaskRequest = z.infer<typeof GetMaskRequest>;

/** Long side of get-mask's `logits` grid. */
export const LOGITS_SIDE = 64;

const Ring = z.array(z.tuple([z.number(), z.number()]));
export const MaskPolygon = z.object({ path: Ring, holes: z.array(Ring) });

/** COCO RLE, column-major, counts as pycocotools' compressed string. */
export const MaskRle = z.object({ size: z.tuple([z.number().int(), z.number().int()]), counts: z.string() });

const VellumAnnotation = z.object({
  polygon: MaskPolygon,
  metadata: z.object({ sam2_area: z.number() }),
});

export const GetMaskResponse = z.object({
  status: z.literal('success'),
  /** The largest polygon of the mask (with its holes) and its area. */
  vellum_annotation: VellumAnnotation.nullable(),
  /** Every polygon of the mask, largest first. */
  vellum_annotations: z.array(VellumAnnotation),
  /** The largest polygon's outer path as [x, y] pairs. */
  polygon: Ring,
  /** [x, y, width, height] of the whole mask in pixels (zeros when empty). */
  bbox: z.tuple([z.number(), z.number(), z.number(), z.number()]),
  /** Foreground pixels. */
  area: z.number().int(),
  /** The segmenter's confidence, 0..1. */
  score: z.number(),
  inference_time: z.number(),
  point_coords: z.array(z.tuple([z.number(), z.number()])),
  /** 1 positive, 0 negative, in point_coords order. */
  point_labels: z.array(z.number().int()),
  mask: MaskRle,
  /**
   * A low-resolution score grid over the whole image (at most LOGITS_SIDE cells on the long side,
   * same aspect ratio), row-major, values rounded to 0.1; > 0 means foreground. SAM2: its mask
   * logits averaged per cell. Built-in: the log-odds of each cell's foreground fraction.
   * This server always sends it; optional in the type so answers from older servers still parse.
   */
  logits: z.object({ size: z.tuple([z.number().int(), z.number().int()]), data: z.array(z.number()) }).nullable().optional(),
  backend: SegmenterBackend,
});
export type GetMaskResponse = z.infer<typeof GetMaskResponse>;

const Bbox = z.union([
  z.tuple([coord, coord, coord, coord]),
  z.object({ x: coord, y: coord, w: coord, h: coord }),
  z.object({ x: coord, y: coord, width: coord, height: coord }),
]);

export const SaveSegmentationRequest = z.object({
  ...ImageRef,
  class_name: storedText(z.string().min(1, 'class_name is required').max(500), 'class_name'),
  /** The mask as get-mask returned it. Either this or a polygon annotation is required. */
  mask: MaskRle.optional(),
  bbox: Bbox.optional(),
  metadata: z
    .looseObject({
      score: z.number().finite().optional(),
      area: z.number().finite().optional(),
      point_count: z.number().int().nonnegative().optional(),
      inference_time: z.number().finite().optional(),
      tool_used: z.string().max(100).optional(),
    })
    // Stored with the annotation, unknown keys included.
    .superRefine((m, ctx) => checkStorable(m, ctx, 'metadata'))
    .default({}),
  vellum_annotation: VellumAnnotation.partial({ metadata: true }).optional(),
  vellum_annotations: z.array(VellumAnnotation.partial({ metadata: true })).max(10_000).optional(),
  /** Optimistic concurrency like save-data: 409 version_conflict when the document moved on. */
  base_version: z.number().int().nonnegative().optional(),
});
export type SaveSegmentationRequest = z.infer<typeof SaveSegmentationRequest>;

export const SaveSegmentationResponse = z.object({
  status: z.literal('success'),
  annotation: z.record(z.string(), z.unknown()),
  /** The annotation document's version after the save. */
  version: z.number().int(),
  new_count: z.number().int(),
});
