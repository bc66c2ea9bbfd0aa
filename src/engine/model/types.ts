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

export type AnnotationType = 'box' | 'polygon' | 'polyline' | 'keypoint' | 'segmentation';

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
  | SegmentationAnnotation;

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
