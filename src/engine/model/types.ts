// Editor-side annotation (spec section 3, "Editor-side annotation"). Coordinates are image
// pixels, origin top-left. Everything here is plain JSON so documents serialise as-is.

export type Point = readonly [number, number];
export type Ring = readonly Point[];

export interface Rect {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** COCO RLE: column-major, counts start with a background run; counts numeric or pycocotools' string. */
export interface Rle {
  /** [height, width] */
  readonly size: readonly [number, number];
  readonly counts: readonly number[] | string;
}

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export type AnnotationType = 'box' | 'polygon' | 'polyline' | 'keypoint' | 'segmentation' | 'skeleton';

interface Base {
  readonly id: string;
  /** The class name (the stored annotation's `name`). */
  readonly class: string;
  readonly attributes?: readonly JsonValue[];
  /** Unknown keys of the stored annotation, kept so saving does not drop them. */
  readonly extra?: Readonly<Record<string, unknown>>;
}

export interface BoxAnnotation extends Base, Rect {
  readonly type: 'box';
}

export interface PolygonAnnotation extends Base {
  readonly type: 'polygon';
  readonly points: Ring;
  readonly holes?: readonly Ring[];
}

export interface PolylineAnnotation extends Base {
  readonly type: 'polyline';
  readonly points: Ring;
}

export interface KeypointAnnotation extends Base {
  readonly type: 'keypoint';
  readonly x: number;
  readonly y: number;
}

/** One point of a skeleton: v as COCO's, 0 not labelled (x and y 0), 1 occluded, 2 visible. */
export interface SkeletonPoint {
  readonly x: number;
  readonly y: number;
  readonly v: 0 | 1 | 2;
}

/**
 * A keypoint skeleton instance (issue 33): one point per named point of its class's skeleton,
 * in the class's order (the stored annotation's `points`). The names and edges are the class's
 * (editor.skeletons.set), not the annotation's.
 */
export interface SkeletonAnnotation extends Base {
  readonly type: 'skeleton';
  readonly keypoints: readonly SkeletonPoint[];
}

/** A mask over the whole image plus its bounding box (x, y, width, height). */
export interface SegmentationAnnotation extends Base, Rect {
  readonly type: 'segmentation';
  readonly rle: Rle;
}

export type EditorAnnotation =
  | BoxAnnotation
  | PolygonAnnotation
  | PolylineAnnotation
  | KeypointAnnotation
  | SegmentationAnnotation
  | SkeletonAnnotation;

/** A skeleton class's definition: its point names in order and its edges (0-based index pairs). */
export interface SkeletonDefinition {
  readonly points: readonly string[];
  readonly edges: readonly (readonly [number, number])[];
}

/** The serialisable document: annotations oldest (bottom) first. */
export interface EditorDocumentJSON {
  readonly annotations: readonly EditorAnnotation[];
}

/** Which vertex of a polygon/polyline: ring 0 is the outer path, ring k>0 is hole k-1. */
export interface VertexRef {
  readonly id: string;
  readonly ring: number;
  readonly index: number;
}

export const MIN_BOX_SIZE = 10;
export const MIN_POLYGON_POINTS = 3;
export const MIN_POLYLINE_POINTS = 2;
