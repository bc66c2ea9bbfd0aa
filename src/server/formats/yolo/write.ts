// YOLO export, Ultralytics layout:
//   data.yaml                           path: ., train, val (and test), nc, names {index: name}
//   labels/[<split>/]<folder path>/<stem>.txt     one line per object; an image without objects gets an empty file
//   images/[<split>/]<folder path>/<filename>     only with include_images
// Without a split, train and val are both `images` (data.yaml says so in a comment); with one
// (request `split`), each split has its own images/<split>/ and labels/<split>/, and data.yaml
// points train, val and test at them.
// Ultralytics finds an image's labels by replacing `images/` with `labels/` and the extension with
// `.txt`, so folders are kept on both sides and two images of different folders never meet. Two
// images of one folder with the same stem (a.png, a.jpg) would share a label file: both are
// renamed `<stem>-<image id>` (../write-common.ts exportName), images and labels alike, and README.txt
// lists them.
//
// Lines: coordinates divided by the image's width and height, written with 6 decimals (an error
// under 1e-6 of the image size), after clipping the shape to the image (Ultralytics refuses a
// label file with a coordinate outside 0..1). The task is the request's `yolo_task`; by default
// `detect` when an exported class is a box class (or, in a project without classes, when no
// exported shape is a polygon or a mask), else `segment`.
// - detect, `class cx cy w h`: one line per shape; polygons and masks by their bounding box.
// - segment, `class x1 y1 x2 y2 ...`: one line per shape. Boxes as their 4 corners; polygons as
//   their ring; masks traced to polygons by the wasm kernel (vertices on pixel-edge midpoints) and
//   simplified within MASK_POLYGON_TOLERANCE pixels. A YOLO segment is one ring, so holes are
//   joined to their outer ring by zero-width keyhole bridges and a mask's parts to each other by
//   bridges between nearest vertices (../rings.ts), as Ultralytics' own COCO converter joins an
//   object's polygons (merge_multi_segment): its even-odd fill leaves the holes empty, and the
//   YOLO reader cuts the bridges to give the holes and parts back.
// - pose, `class cx cy w h x1 y1 v1 ...` (issue 33): a skeleton's box and its points in its class's
//   order (v 0 written 0 0 0), data.yaml's kpt_shape [K, 3] with K the most points an exported
//   skeleton class has (fewer are padded with 0 0 0) and kpt_names per skeleton class; other
//   shapes as their box with every keypoint 0 0 0. The default when a skeleton class is exported.
//   Detect writes a skeleton as its box; segment leaves it out.
// - Lone keypoints and polylines have no YOLO form: left out, counted in README.txt.
// Class indices follow the project's class order (of the exported classes); a class name found
// only on annotations is appended.
import type { Kernels } from '../../../kernels/node';
import type { ImageRow } from '../../services/images';
import { rleBBox, numericCounts } from '../../../contract/rle';
import type { YoloTask } from '../../../contract/export';
import { classAllowsTool } from '../../../contract/projects';
import { skeletonBox, skeletonPointsOf } from '../../../contract/skeleton';
import { isNum, isPath, pathBox, ringArea, type Pt } from '../shapes';
import { joinParts, keyholeRing } from '../rings';
import { convert, exportName, hasAreaShapes, MASK_POLYGON_TOLERANCE, splitOf, imageSize, leftOutSection, LeftOut, NO_BOX, NO_MASK, sharedStems, storedBox, storedMask, Tally, type FormatWriter, type ImageSize, type RunState } from '../write-common';

/** One annotation as YOLO label rows (normalised numbers, without the class index). */
export type YoloConverted =
  | { kind: 'rows'; rows: number[][]; clipped: boolean; holes: boolean; parts: number }
  | { kind: 'keypoint' }
  | { kind: 'polyline' }
  | { kind: 'skeleton' }
  | { kind: 'invalid'; reason: string };

const clamp = (v: number, max: number) => Math.min(Math.max(v, 0), max);
const OUTSIDE = { kind: 'invalid', reason: 'no area inside the image' } as const;

function boxRows(x: number, y: number, w: number, h: number, size: ImageSize, segments: boolean): YoloConverted {
  const { width: W, height: H } = size;
  const x0 = clamp(x, W), y0 = clamp(y, H), x1 = clamp(x + w, W), y1 = clamp(y + h, H);
  if (!(x1 > x0 && y1 > y0)) return OUTSIDE;
  const clipped = x0 !== x || y0 !== y || x1 !== x + w || y1 !== y + h;
  const row = segments ? [x0 / W, y0 / H, x1 / W, y0 / H, x1 / W, y1 / H, x0 / W, y1 / H] : [(x0 + x1) / 2 / W, (y0 + y1) / 2 / H, (x1 - x0) / W, (y1 - y0) / H];
  return { kind: 'rows', rows: [row], clipped, holes: false, parts: 1 };
}

/** Rings as segment rows (clipped to the image), or as their bounding boxes in detect mode. `holes`: the shape had holes (kept in segment rows). */
function ringRows(rings: readonly Pt[][], holes: boolean, size: ImageSize, segments: boolean, parts = rings.length): YoloConverted {
  const rows: number[][] = [];
  let clipped = false;
  for (const ring of rings) {
    if (!segments) {
      const b = pathBox(ring);
      const r = boxRows(b.x, b.y, b.w, b.h, size, false);
      if (r.kind !== 'rows') continue;
      rows.push(...r.rows);
      clipped ||= r.clipped;
      continue;
    }
    const pts = ring.map(([x, y]): Pt => [clamp(x, size.width), clamp(y, size.height)]);
    if (ringArea(pts) === 0) continue;
    clipped ||= pts.some(([x, y], i) => x !== ring[i]![0] || y !== ring[i]![1]);
    rows.push(pts.flatMap(([x, y]) => [x / size.width, y / size.height]));
  }
  if (rows.length === 0) return OUTSIDE;
  return { kind: 'rows', rows, clipped, holes, parts };
}

/**
 * One stored annotation as YOLO rows for an image of `size`; `segments` picks the segment form;
 * masks are traced with `tolerance` pixels of simplification (0: every pixel corner).
 */
export function toYolo(a: Record<string, unknown>, size: ImageSize, segments: boolean, kernels: Kernels, tolerance = MASK_POLYGON_TOLERANCE): YoloConverted {
  if (a.keypoint !== undefined) return { kind: 'keypoint' };
  if (a.polyline !== undefined) return { kind: 'polyline' };
  if (a.segmentation !== undefined) {
    const rle = storedMask(a);
    if (!rle) return NO_MASK;
    if (!segments) {
      // One box for the whole mask, from its runs (exact, nothing traced).
      const b = rleBBox({ size: rle.size, counts: numericCounts(rle) });
      return b.width > 0 && b.height > 0 ? boxRows(b.x, b.y, b.width, b.height, size, false) : { kind: 'invalid', reason: 'empty mask' };
    }
    const polygons = kernels.maskToPolygons(rle, { tolerance }).filter((p) => p.path.length >= 3);
    if (polygons.length === 0) return { kind: 'invalid', reason: 'empty mask' };
    const ring = joinParts(polygons.map((p) => keyholeRing(p.path, p.holes).ring));
    return ringRows([ring], polygons.some((p) => p.holes.length > 0), size, segments, polygons.length);
  }
  if (a.polygon !== undefined) {
    const p = a.polygon as { path?: unknown; holes?: unknown };
    if (!isPath(p.path) || p.path.length < 3) return { kind: 'invalid', reason: 'polygon with fewer than 3 points' };
    const holes = Array.isArray(p.holes) ? p.holes.filter((h): h is Pt[] => isPath(h) && h.length >= 3) : [];
    // Detect rows are the outer ring's box; segment rows keep the holes, keyholed into the ring.
    return ringRows([segments && holes.length ? keyholeRing(p.path, holes).ring : p.path], holes.length > 0, size, segments);
  }
  const box = storedBox(a);
  return box ? boxRows(box.x, box.y, box.w, box.h, size, segments) : NO_BOX;
}

type SkeletonPoint = { x: number; y: number; v: number };

/** A skeleton's points as pose label values `x y v` (normalised, clipped to the image; 0 0 0 for a point not labelled), padded to `count` points. */
export function poseValues(points: readonly SkeletonPoint[], size: ImageSize, count: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const p = points[i];
    if (!p || !(p.v > 0) || !isNum(p.x) || !isNum(p.y)) out.push(0, 0, 0);
    else out.push(clamp(p.x, size.width) / size.width, clamp(p.y, size.height) / size.height, p.v === 1 ? 1 : 2);
  }
  return out;
}

/**
 * One stored annotation's rows for the task: segment as toYolo (a skeleton has no outline: left
 * out); detect one box (a skeleton's its box); pose the box and `count` keypoints (a skeleton's
 * points, other shapes none: all 0 0 0).
 */
export function taskRows(a: Record<string, unknown>, size: ImageSize, task: YoloTask, count: number, kernels: Kernels): YoloConverted {
  const skeleton = Array.isArray(a.points) ? (a.points as SkeletonPoint[]) : null;
  if (task === 'segment') return skeleton ? { kind: 'skeleton' } : toYolo(a, size, true, kernels);
  let rows: YoloConverted;
  if (skeleton) {
    const b = storedBox(a) ?? skeletonBox(skeleton);
    rows = boxRows(b.x, b.y, b.w, b.h, size, false);
  } else rows = toYolo(a, size, false, kernels);
  if (task !== 'pose' || rows.kind !== 'rows') return rows;
  const values = poseValues(skeleton ?? [], size, count);
  return { ...rows, rows: rows.rows.map((r) => [...r, ...values]) };
}

/**
 * A YAML double-quoted scalar that YAML 1.1 (PyYAML, which Ultralytics uses) and 1.2 both read
 * back as `s`: JSON's escapes, plus \u escapes for what PyYAML refuses to see unescaped.
 */
export function yamlString(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\u0084\u0086-\u009f\ufeff\ufffe\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The request's task, or the default: pose when an exported class is a skeleton class, detect when one is a box class (without classes: when no polygon or mask is exported). */
export async function yoloTask(s: RunState): Promise<YoloTask> {
  if (s.yoloTask) return s.yoloTask;
  const exported = s.project.classes.filter((c) => !s.classFilter || s.classFilter.has(c.name));
  if (exported.some((c) => skeletonPointsOf(c))) return 'pose';
  if (exported.length > 0) return exported.some((c) => classAllowsTool(c, 'box')) ? 'detect' : 'segment';
  return (await hasAreaShapes(s)) ? 'segment' : 'detect';
}

export class YoloWriter implements FormatWriter {
  private readonly classes = new Map<string, number>();
  private readonly leftOut = new LeftOut();
  private readonly renamedList = new Tally();
  private clipped = 0;
  private holes = 0;
  private masks = 0;
  private maskParts = 0;

  /** Pose: the keypoints per line (the most points an exported skeleton class has), and each skeleton class's point names by class index. */
  private readonly keypoints: number = 0;
  private readonly pointNames = new Map<number, readonly string[]>();
  /** Pose: lines of shapes that are not skeletons (a box without keypoints). */
  private withoutKeypoints = 0;
  private readonly segments: boolean;

  static async create(s: RunState): Promise<YoloWriter> {
    const [task, renamed] = await Promise.all([yoloTask(s), sharedStems(s, true)]);
    return new YoloWriter(s, task, renamed);
  }

  private constructor(
    private readonly s: RunState,
    private readonly task: YoloTask,
    private readonly renamed: ReadonlySet<string>,
  ) {
    this.segments = task === 'segment';
    for (const c of s.project.classes) {
      if (s.classFilter && !s.classFilter.has(c.name)) continue;
      const index = this.classIndex(c.name);
      const points = skeletonPointsOf(c);
      if (points) this.pointNames.set(index, points);
    }
    // kpt_shape needs at least one point: a pose export without skeleton classes writes one, never labelled.
    if (task === 'pose') this.keypoints = Math.max(1, ...[...this.pointNames.values()].map((p) => p.length));
  }

  private classIndex(name: string): number {
    let i = this.classes.get(name);
    if (i === undefined) this.classes.set(name, (i = this.classes.size));
    return i;
  }

  /** '[<split>/]<folder path>/' ('' at the top without a split) and the image's file name and stem in this layout. */
  private names(image: ImageRow, rel: string) {
    const split = splitOf(this.s, image);
    const folder = `${split ? `${split}/` : ''}${rel.slice(0, rel.length - image.filename.length)}`;
    return { folder, ...exportName(image, this.renamed) };
  }

  imagePath(image: ImageRow, rel: string): string {
    const n = this.names(image, rel);
    return `images/${n.folder}${n.fileName}`;
  }

  async image(image: ImageRow, rel: string, annotations: Record<string, unknown>[]): Promise<void> {
    const { s } = this;
    const n = this.names(image, rel);
    if (n.fileName !== image.filename) this.renamedList.add(`${rel}\t${n.folder}${n.fileName}`);
    const size = imageSize(image);
    const lines: string[] = [];
    for (const a of annotations) {
      if (s.slice.due()) await s.slice.pause();
      const className = String(a.name ?? '');
      const c = size ? convert(() => taskRows(a, size, this.task, this.keypoints, s.kernels!)) : ({ kind: 'invalid', reason: 'the image size is unknown' } as const);
      if (c.kind === 'keypoint' || c.kind === 'polyline' || c.kind === 'skeleton') {
        this.leftOut.add(c.kind, className);
        continue;
      }
      if (c.kind === 'invalid') {
        s.report.invalid.add(`${rel}\t${className}\t${String(a.id ?? '')}\t${c.reason}`);
        continue;
      }
      const index = this.classIndex(className);
      for (const row of c.rows) lines.push(`${index} ${row.map((v) => v.toFixed(6)).join(' ')}`);
      s.report.annotations += 1;
      if (this.task === 'pose' && !Array.isArray(a.points)) this.withoutKeypoints += 1;
      if (c.clipped) this.clipped += 1;
      if (c.holes && this.segments) this.holes += 1;
      if (a.segmentation !== undefined) {
        this.masks += 1;
        this.maskParts += c.parts;
      }
    }
    this.leftOut.flush(s.report, rel);
    await s.sink.addText(`labels/${n.folder}${n.stem}.txt`, lines.length ? `${lines.join('\n')}\n` : '');
  }

  async finish(): Promise<void> {
    const names = [...this.classes].map(([name, i]) => `  ${i}: ${yamlString(name)}`);
    const split = this.s.split;
    const sets = split
      ? ['# Split by Vellum (see README.txt).', ...split.names.map((n) => `${n}: images/${n}`)]
      : ['# No split was asked for: val repeats train (every image). Export with a split for a validation set.', 'train: images', 'val: images'];
    const yaml = [
      '# Ultralytics YOLO dataset exported from Vellum (see README.txt).',
      'path: .',
      ...sets,
      `nc: ${this.classes.size}`,
      this.classes.size ? 'names:' : 'names: {}',
      ...names,
      ...(this.task === 'pose'
        ? [`kpt_shape: [${this.keypoints}, 3]`, ...(this.pointNames.size ? ['kpt_names:', ...[...this.pointNames].map(([i, p]) => `  ${i}: [${p.map(yamlString).join(', ')}]`)] : [])]
        : []),
    ];
    await this.s.sink.addText('data.yaml', `${yaml.join('\n')}\n`);
  }

  readme(): string[] {
    const { report } = this.s;
    const dir = this.s.split ? '<split>/' : '';
    const lines = [
      `Layout: data.yaml (Ultralytics: path, ${this.s.split ? this.s.split.names.join(', ') : 'train, val'}, nc, names by class index in the project's class order)`,
      `        labels/${dir}<folder path>/<stem>.txt (one line per object; an image without objects has an empty file)`,
      `        images/${dir}<folder path>/<filename> (when image files are included)`,
      'path: . is the folder training runs from: run it from this folder, or set path to where you unzipped it.',
      '',
      this.task === 'pose'
        ? `Task: pose${this.s.yoloTask ? ' (as asked)' : ' (the default: the export has skeleton classes)'}. Labels "class cx cy w h x1 y1 v1 ... x${this.keypoints} y${this.keypoints} v${this.keypoints}" (kpt_shape [${this.keypoints}, 3] in data.yaml, kpt_names per skeleton class): a skeleton's box and its points in its class's order, v 0 not labelled (0 0 0), 1 occluded, 2 visible; a class of fewer points is padded with 0 0 0.`
        : this.segments
        ? `Task: segment${this.s.yoloTask ? ' (as asked)' : ' (the default: no exported class is a box class)'}. Labels "class x1 y1 x2 y2 ..."; boxes are written as their 4 corners.`
        : `Task: detect${this.s.yoloTask ? ' (as asked)' : ' (the default: the export has box classes)'}. Labels "class cx cy w h", one per shape.`,
      'Coordinates are divided by the image\'s width and height (0..1, 6 decimals); shapes are clipped to the image.',
    ];
    if (this.segments) {
      lines.push(`Masks are traced into polygons (vertices on the midpoints of pixel edges) and simplified within ${MASK_POLYGON_TOLERANCE} pixel(s).`);
      lines.push('Every shape is one line. A YOLO segment is one ring, so holes are joined to their outer ring, and the parts of a mask to each');
      lines.push("other, by zero-width bridges walked there and back (as Ultralytics' COCO converter joins an object's polygons): filled even-odd,");
      lines.push('as Ultralytics fills them, the holes stay empty and the bridges draw nothing.');
    } else {
      lines.push('Polygons and masks are written as their bounding boxes.');
    }
    if (this.withoutKeypoints) lines.push(`Without keypoints: ${this.withoutKeypoints} shape(s) that are not skeletons are written as their box with every keypoint 0 0 0.`);
    if (this.clipped) lines.push(`Clipped to the image: ${this.clipped} annotation(s).`);
    if (this.holes) lines.push(`Holes kept: ${this.holes} polygon(s) or mask(s) had holes, joined in by keyhole bridges.`);
    if (this.masks && this.segments) lines.push(`Masks: ${this.masks} traced into ${this.maskParts} part(s), one line per mask.`);
    lines.push('');
    lines.push(...leftOutSection(report, 'keypoint', 'Keypoints', 'YOLO detect and segment labels have no points'));
    lines.push(...leftOutSection(report, 'polyline', 'Polylines', 'YOLO detect and segment labels have no open paths'));
    if (this.segments) lines.push(...leftOutSection(report, 'skeleton', 'Skeletons', 'YOLO segment labels have no points (export with the pose task for them)'));
    if (this.renamedList.count) {
      lines.push('');
      lines.push(`Renamed (${this.renamedList.count}): images of one folder that share a stem (a.png, a.jpg) would share a label file, so each is saved as <stem>-<image id>:`);
      lines.push('image\tsaved as (below images/ and, as .txt, labels/)');
      this.renamedList.list(lines);
    }
    return lines;
  }
}
