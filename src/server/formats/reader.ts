// What a format reader (./<format>/read.ts) and the importer (../services/import/run.ts) agree on.
//
// A reader only understands its format: it lists the dataset's classes and yields one
// ImportedImage at a time with its annotations in the dataset's own terms (pixels, or 0..1 for
// YOLO). The importer does everything the formats share: it checks image bytes like an upload,
// matches annotation-only images by file name, turns normalised coordinates into pixels with the
// image's real size, clips boxes to the image, drops polygons under 3 points, gives ids, validates
// with the stored-annotation schema and writes. Readers never touch the database or storage.
import type { Readable } from 'node:stream';
import type { ImportFormat } from '../../contract/imports';
import type { AnnotationType, AttributeDefinition, ClassTool, SkeletonDefinition } from '../../contract/projects';
import type { ImageStatus } from '../../contract/images';
import type { LabelParsing } from './yolo/read';

/**
 * The uploaded file, read-only: a zip's file entries, or a single .json / .xml file as an archive
 * of one entry. Paths are '/'-separated and relative; entries with '..' or absolute paths never
 * appear here (the importer reports them as skipped before any reader runs).
 */
export interface ImportArchive {
  /** File entries in archive order (no directories). */
  readonly paths: readonly string[];
  has(path: string): boolean;
  /** Uncompressed size in bytes. */
  size(path: string): number;
  /** The entry's bytes as a stream (for large files: COCO JSON, images). */
  open(path: string): Promise<Readable>;
  /** The whole entry; throws an ImportInputError when it is larger than `maxBytes` (default MAX_IMPORT_TEXT_BYTES). */
  read(path: string, maxBytes?: number): Promise<Buffer>;
}

export type Point = [number, number];

export type ImportedShape =
  | { type: 'box'; x: number; y: number; w: number; h: number }
  /** A polygon with optional holes (COCO objects with several rings become several polygons). */
  | { type: 'polygon'; path: Point[]; holes?: Point[][] }
  | { type: 'polyline'; path: Point[] }
  | { type: 'keypoint'; x: number; y: number }
  /** COCO-order RLE: size [height, width], column-major counts (numbers, or pycocotools' string). */
  | { type: 'mask'; size: [number, number]; counts: number[] | string }
  /** One skeleton instance of a skeleton class: one point per named point in the class's order, v as COCO's (0 not labelled, 1 occluded, 2 visible); `box`: the dataset's box of the instance (else derived from the points). */
  | { type: 'skeleton'; points: { x: number; y: number; v: number }[]; box?: { x: number; y: number; w: number; h: number } };

/** An attribute as Vellum stores it in an annotation's attributes list. */
export interface NamedAttribute {
  name: string;
  value: string | number | boolean | null;
}

export interface ImportedAnnotation {
  /** Class name, as the dataset spells it (matched to project classes case-insensitively). */
  class: string;
  shape: ImportedShape;
  /** Only the Vellum format keeps its ids; others get new ones. */
  id?: string;
  /** Named attributes: COCO `attributes`, VOC difficult/truncated/pose, CVAT attributes, occluded... */
  attributes?: NamedAttribute[];
  /**
   * Extra stored keys. Keypoints of a COCO skeleton carry `part` (the keypoint's name) and
   * `instance` (the same string for every point of one COCO annotation), so export can join them.
   */
  extra?: Record<string, unknown>;
}

export interface ImportedImage {
  /** The image's file name (no folders): how annotation-only files match the project's images. */
  fileName: string;
  /** Path of the image's bytes inside the archive, when the archive carries them. */
  entry?: string;
  /** Folder to place a new image in, relative to the import's folder_path ('' for the top). */
  folder?: string;
  /** The size the dataset records (COCO/VOC/CVAT width and height); the real size wins, a mismatch warns. */
  width?: number;
  height?: number;
  /** YOLO: every coordinate is a fraction of the image's width or height. */
  normalized?: boolean;
  annotations: ImportedAnnotation[];
  /** Vellum: annotations exactly as stored (validated by the importer, ids kept); `annotations` is then empty. */
  stored?: unknown[];
  /** Vellum: the image's stage. */
  status?: ImageStatus;
  /** Vellum: whether the image is archived. */
  archived?: boolean;
}

export interface ImportedClass {
  name: string;
  /** From the geometry when the format does not say; masks are 'polygon' classes. */
  type?: AnnotationType;
  /** Vellum keeps colours; others get the next palette colour. */
  color?: string;
  /** Vellum keeps attribute definitions (issue 19). */
  attributes?: AttributeDefinition[];
  /** A keypoint class's point names in order (COCO's category keypoints), so an export keeps each point's place. */
  keypoints?: string[];
  /** The tools that may draw the class (Vellum keeps them; others leave every tool of its type). */
  tools?: ClassTool[];
  /** A skeleton class (kind 'skeleton'): its named points in order and its 0-based edges. */
  skeleton?: SkeletonDefinition;
}

export interface ImportReporter {
  /** A file (or one record of it, e.g. `instances.json: annotations[12]`) left out, and why. */
  skip(file: string, reason: string): void;
  /** Something imported but changed or doubtful (clipped, size mismatch, unknown attribute). */
  warn(message: string): void;
}

export interface ReadOptions {
  report: ImportReporter;
  /** A private temporary directory the reader may spill to (removed by the importer). */
  tmpDir: string;
  signal?: AbortSignal;
  /** YOLO label files parsed off the event loop (the importer's real run); absent, in-line. See LabelParsing in ./yolo/read.ts. */
  yoloLabels?: LabelParsing;
}

export interface DatasetRead {
  classes: ImportedClass[];
  /** Folders to create even when empty (Vellum). */
  folders?: string[];
  /** Images to expect, for the progress bar (0 when unknown). */
  total: number;
  images: AsyncIterable<ImportedImage>;
}

export interface FormatReader {
  format: ImportFormat;
  /** Cheap: looks at entry names and at most a few small files. */
  detect(archive: ImportArchive): Promise<boolean>;
  read(archive: ImportArchive, options: ReadOptions): Promise<DatasetRead>;
}

/**
 * Bad input that ends the whole import with a clear message (malformed JSON with its line, an XML
 * error with its file and line, a missing names file). Anything else thrown is a bug.
 */
export class ImportInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportInputError';
  }
}
