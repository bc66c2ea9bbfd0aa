// Stored annotation schema (ARCHITECTURE.md "API details", spec section 3), shared by the
// server (save-data / load-data validation) and the editor engine (stored <-> editor conversion
// lives in src/engine/model/convert.ts).
//
// One shape key per annotation: `bounding_box` alone means a box; otherwise exactly one of
// polygon / polyline / keypoint / segmentation / points (a keypoint skeleton, issue 33) sits
// beside the bounding box. A skeleton may be sent without its box: the server derives it
// (withDerivedBoxes in ./skeleton.ts) before it validates and stores, so a stored one always has it.
import { z } from 'zod';
import { StoredJson, checkStorable, storedText } from './text';
import { stringToCounts } from './rle';

/** A finite number: JSON has no NaN/Infinity, and a stored one would poison every consumer. */
const Coord = z.number().refine(Number.isFinite, 'Coordinates must be finite numbers');

export const StoredPoint = z.tuple([Coord, Coord]);
export type StoredPoint = z.infer<typeof StoredPoint>;

export const StoredBoundingBox = z.object({
  x: Coord,
  y: Coord,
  w: Coord.refine((v) => v >= 0, 'Bounding box width must not be negative'),
  h: Coord.refine((v) => v >= 0, 'Bounding box height must not be negative'),
});
export type StoredBoundingBox = z.infer<typeof StoredBoundingBox>;

export const POLYGON_MIN_POINTS = 3;
export const POLYLINE_MIN_POINTS = 2;

export const StoredPolygon = z.object({
  path: z.array(StoredPoint).min(POLYGON_MIN_POINTS, `A polygon needs at least ${POLYGON_MIN_POINTS} points`),
  holes: z.array(z.array(StoredPoint).min(POLYGON_MIN_POINTS, `A polygon hole needs at least ${POLYGON_MIN_POINTS} points`)).optional(),
});
export type StoredPolygon = z.infer<typeof StoredPolygon>;

export const StoredPolyline = z.object({
  path: z.array(StoredPoint).min(POLYLINE_MIN_POINTS, `A polyline needs at least ${POLYLINE_MIN_POINTS} points`),
});
export type StoredPolyline = z.infer<typeof StoredPolyline>;

export const StoredKeypoint = z.object({ x: Coord, y: Coord });
export type StoredKeypoint = z.infer<typeof StoredKeypoint>;

/** A skeleton point's `v`, as COCO's: 0 not labelled (x and y are then 0), 1 labelled but occluded, 2 visible. */
export const POINT_MISSING = 0;
export const POINT_OCCLUDED = 1;
export const POINT_VISIBLE = 2;
export type PointVisibility = 0 | 1 | 2;
/** Points of one skeleton instance (the class's named points, in order). */
export const MAX_INSTANCE_POINTS = 1000;

export const StoredSkeletonPoint = z
  .object({
    x: Coord,
    y: Coord,
    v: z.union([z.literal(0), z.literal(1), z.literal(2)], { error: 'A point\'s v must be 0 (not labelled), 1 (occluded) or 2 (visible)' }),
  })
  .refine((p) => p.v !== POINT_MISSING || (p.x === 0 && p.y === 0), 'A point that is not labelled (v 0) has x and y 0');
export type StoredSkeletonPoint = z.infer<typeof StoredSkeletonPoint>;

/** A skeleton instance's points: one {x, y, v} per named point of its class, in the class's order. */
export const StoredSkeletonPoints = z
  .array(StoredSkeletonPoint)
  .min(1, 'A skeleton needs at least 1 point')
  .max(MAX_INSTANCE_POINTS, `A skeleton has at most ${MAX_INSTANCE_POINTS} points`);

/** pycocotools' compressed counts use ASCII 48..111 only. */
const COMPRESSED_RLE_RE = /^[0-o]*$/;

/** Sum of pycocotools' compressed counts, or null if the string is malformed or a run is negative. */
function compressedCountsSum(s: string): number | null {
  let counts: number[];
  try {
    counts = stringToCounts(s);
  } catch {
    return null;
  }
  let sum = 0;
  for (const c of counts) {
    if (c < 0) return null;
    sum += c;
  }
  return sum;
}

export const StoredSegmentation = z
  .object({
    /** [height, width], COCO order. */
    size: z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]),
    counts: z.union([
      z.array(z.number().int().nonnegative()),
      z.string().regex(COMPRESSED_RLE_RE, 'Compressed RLE counts may only hold the characters 0 to o'),
    ]),
  })
  .superRefine((seg, ctx) => {
    let sum: number | null = 0;
    if (typeof seg.counts === 'string') {
      sum = compressedCountsSum(seg.counts);
      if (sum === null) {
        ctx.addIssue({ code: 'custom', path: ['counts'], message: 'Compressed RLE counts are malformed' });
        return;
      }
    } else {
      for (const c of seg.counts) sum += c;
    }
    const [h, w] = seg.size;
    if (sum !== h * w) {
      ctx.addIssue({ code: 'custom', path: ['counts'], message: `RLE counts sum to ${sum}, expected height*width = ${h * w}` });
    }
  });
export type StoredSegmentation = z.infer<typeof StoredSegmentation>;

/** Attributes are free-form JSON values (the spec leaves their shape open), with text the database can store. */
export const StoredAttributes = z.array(StoredJson);
export type StoredAttributes = z.infer<typeof StoredAttributes>;

export const SHAPE_KEYS = ['polygon', 'polyline', 'keypoint', 'segmentation', 'points'] as const;

// Limits on what a client chooses in an annotation (issue 30). A save over one is refused with
// 400 naming the key (src/contract/annotation-check.ts checks them, without recursion, before the
// schema): a 1 MB id cannot be indexed (it answered 500), and a value nested thousands deep
// overflowed the validator's stack. Data already stored is loaded as it is.
/** Characters of an annotation id (the live socket's selection ids have the same limit). */
export const MAX_ANNOTATION_ID_LENGTH = 200;
/** Characters of the class name (a project's class names have the same limit). */
export const MAX_CLASS_NAME_LENGTH = 100;
/** Characters of any object key in an annotation, and of an attribute entry's name. */
export const MAX_ANNOTATION_KEY_LENGTH = 200;
/** Keys of an annotation besides id, name, bounding_box, its shape and attributes (e.g. `sam2_area`). */
export const MAX_EXTRA_KEYS = 50;
/** Entries of `attributes`. */
export const MAX_ATTRIBUTE_ENTRIES = 200;
/** Bytes of JSON taken by `attributes` and the extra keys together. */
export const MAX_EXTRA_BYTES = 64 * 1024;
/** Levels of arrays and objects in an annotation (the annotation itself is level 1). */
export const MAX_ANNOTATION_DEPTH = 20;
export type ShapeKey = (typeof SHAPE_KEYS)[number];

/** Characters of a prediction's model id (issue 34). */
export const MAX_MODEL_ID_LENGTH = 200;

/**
 * Where a predicted annotation came from (issue 34, the shared prediction contract): the model
 * that drew it, its score, and whether a person still has to accept it. Accepting sets `pending`
 * to false (model_id and score kept); rejecting deletes the shape. Exactly these three keys.
 */
export const PredictionSource = z.strictObject(
  {
    model_id: z
      .string({ error: 'must be a string' })
      .min(1, 'must not be empty')
      .max(MAX_MODEL_ID_LENGTH, `must be at most ${MAX_MODEL_ID_LENGTH} characters`),
    score: z
      .number({ error: 'must be a number from 0 to 1' })
      .refine((n) => Number.isFinite(n) && n >= 0 && n <= 1, 'must be a number from 0 to 1'),
    pending: z.boolean({ error: 'must be true or false' }),
  },
  { error: (iss) => (iss.code === 'unrecognized_keys' ? `must hold only model_id, score and pending (found ${iss.keys.slice(0, 5).join(', ')})` : 'must be an object {model_id, score, pending}') },
);
export type PredictionSource = z.infer<typeof PredictionSource>;

/**
 * Unknown extra keys (e.g. metadata from assisted segmentation such as `sam2_area`) are kept,
 * so a load -> edit -> save cycle does not drop data another tool wrote.
 */
export const StoredAnnotation = z
  .looseObject({
    id: storedText(z.string().min(1), 'The id'),
    name: storedText(z.string(), 'The class name'),
    bounding_box: StoredBoundingBox,
    polygon: StoredPolygon.optional(),
    polyline: StoredPolyline.optional(),
    keypoint: StoredKeypoint.optional(),
    segmentation: StoredSegmentation.optional(),
    points: StoredSkeletonPoints.optional(),
    attributes: StoredAttributes.optional(),
    source: PredictionSource.optional(),
  })
  .superRefine((a, ctx) => {
    // Unknown extra keys are stored as sent: their text (keys and values) must be storable too.
    checkStorable(a, ctx);
    const present = SHAPE_KEYS.filter((k) => a[k] !== undefined);
    if (present.length > 1) {
      ctx.addIssue({ code: 'custom', message: `An annotation holds one shape, found ${present.join(' and ')}` });
    }
  });
export type StoredAnnotation = z.infer<typeof StoredAnnotation>;

export const StoredAnnotations = z.array(StoredAnnotation).superRefine((list, ctx) => {
  const seen = new Set<string>();
  list.forEach((a, i) => {
    if (seen.has(a.id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `Duplicate annotation id ${a.id}` });
    seen.add(a.id);
  });
});

/** The shape kind a stored annotation represents ("bounding_box means box"; `points` a skeleton). */
export function storedKind(a: StoredAnnotation): 'box' | 'skeleton' | Exclude<ShapeKey, 'points'> {
  for (const k of SHAPE_KEYS) if (a[k] !== undefined) return k === 'points' ? 'skeleton' : k;
  return 'box';
}
