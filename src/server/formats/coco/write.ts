// COCO export: stored annotations -> COCO "instances" records, one image at a time (toCoco), and
// the writer that spools them into the one annotations.json a COCO dataset is:
//   annotations.json                 {info, licenses, categories, images, annotations}
//   annotations/instances_{train,val,test}.json   instead, with a split (request `split`): each
//                                    with its split's images and annotations, the same categories,
//                                    and image and annotation ids unique across the files
//   images/<folder path>/<filename>  only with include_images (file_name in annotations.json)
// Both lists span the whole export: they are spooled to temporary files during the single pass
// and streamed into annotations.json at the end.
//
// Decisions (see README.txt inside each COCO zip and the export service header):
// - box: bbox [x,y,w,h], area w*h, segmentation the box as a polygon (pycocotools' annToRLE /
//   frPyObjects crash on an empty segmentation list), iscrowd 0, and the mark `vellum_shape: 'box'`
//   (./rules.ts BOX_MARK) so that an import reads it back as a box, not as a rectangle polygon.
// - polygon without holes: segmentation [[x1,y1,x2,y2,...]], area by the shoelace formula,
//   bbox from the vertices, iscrowd 0.
// - polygon with holes: rasterised (pixel centres, even-odd) to COCO RLE with the compressed
//   string counts pycocotools writes; area and bbox from the mask, iscrowd 0.
// - mask (segmentation): re-emitted as compressed RLE; area and bbox from the runs, iscrowd 0.
//   With mask_format 'polygon': traced into polygons simplified within MASK_POLYGON_TOLERANCE
//   pixels (maskAsPolygons), one per connected part. COCO polygons have no holes and pycocotools
//   unions a segmentation's polygons, so each part's holes are joined to its outer ring by
//   zero-width keyhole bridges (../rings.ts keyholeRing): pycocotools' rasteriser (frPoly) cancels the two
//   copies of each bridge and leaves the hole empty; README.txt counts these masks. Area by the
//   shoelace formula of the joined rings (holes run the other way: outer minus holes).
//   pycocotools accepts RLE with iscrowd 0 everywhere (COCO(), annToRLE, annToMask, loadRes,
//   COCOeval); iscrowd 1 would make COCOeval treat the object as an ignore region.
// - skeleton (issue 33): one annotation, `keypoints` the [x, y, v] triples of its points in its
//   class's order, `num_keypoints` the labelled ones (v > 0), bbox its box, area the box's (OKS
//   scales by it), segmentation a zero-area polygon at the box's corner (pycocotools loads it, the
//   reader drops zero-area geometry of keypoint annotations); its category has the class's point
//   names as `keypoints` and its edges as `skeleton`, 1-based as COCO writes them (ours are 0-based).
// - keypoint: `keypoints: [x, y, 2]`, `num_keypoints: 1`, bbox [x, y, 0, 0], area 0, and as
//   segmentation the point as a degenerate triangle [[x,y,x,y,x,y]] (its category carries
//   keypoints ['point'] and skeleton []).
// - polyline: COCO has no open paths: left out and counted for README.txt.
// - shapes sharing an `instance` (an imported COCO object) are joined into one annotation again,
//   with keypoints per the category's part names (./instances.ts); named attributes become the
//   annotation's `attributes` object.
// The rules the reader must read back the same way (box rings, lone points, visibility, iscrowd,
// RLE, attributes) are ./rules.ts.
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Kernels } from '../../../kernels/node';
import { numericCounts, rleArea, rleBBox } from '../../../contract/rle';
import type { ImageRow } from '../../services/images';
import { Spool } from '../../services/export/sink';
import { boxRing, isNum, isPath, pathBox, ringArea, type Pt } from '../shapes';
import { keyholeRing } from '../rings';
import { skeletonBox } from '../../../contract/skeleton';
import { convert, imageSize, leftOutSection, LeftOut, MASK_POLYGON_TOLERANCE, NO_BOX, NO_MASK, splitOf, storedBox, storedMask, type FormatWriter, type ImageSize, type RunState } from '../write-common';
import { groupInstances, joinInstance, keypointTriples, type SparsePoint } from './instances';
import { attributesObject, BOX_MARK, cocoArea, compressedRle, crowdOf, POINT_PART, pointSegmentation, VELLUM_COCO_VERSION } from './rules';

export type CocoKind = 'box' | 'polygon' | 'keypoint' | 'mask';

export interface CocoAnnotationBody {
  bbox: [number, number, number, number];
  area: number;
  /** 1 only for a shape imported as a crowd region (its extra key iscrowd: 1). */
  iscrowd: 0 | 1;
  segmentation: number[][] | { size: [number, number]; counts: string };
  keypoints?: [number, number, 2];
  num_keypoints?: 1;
  /** Vellum's box mark (./rules.ts BOX_MARK). */
  vellum_shape?: 'box';
}

export type Converted = { kind: CocoKind; body: CocoAnnotationBody } | { kind: 'polyline' } | { kind: 'invalid'; reason: string };

/** A path's bbox as written: 3 decimals. */
function pathBBox(path: readonly Pt[]): [number, number, number, number] {
  const b = pathBox(path);
  return [cocoArea(b.x), cocoArea(b.y), cocoArea(b.w), cocoArea(b.h)];
}

/**
 * One stored annotation in COCO form. `size` is the image size (needed to rasterise polygons with
 * holes); `kernels` are loaded by the caller when the export is COCO.
 */
export function toCoco(a: Record<string, unknown>, size: ImageSize | null, kernels: Kernels): Converted {
  if (a.polyline !== undefined) return { kind: 'polyline' };
  if (a.keypoint !== undefined) {
    const k = a.keypoint as { x?: unknown; y?: unknown };
    if (!isNum(k.x) || !isNum(k.y)) return { kind: 'invalid', reason: 'keypoint without coordinates' };
    // The point as a zero-area triangle (./rules.ts): it rasterises to an empty mask (area 0).
    return { kind: 'keypoint', body: { bbox: [k.x, k.y, 0, 0], area: 0, iscrowd: 0, segmentation: pointSegmentation(k.x, k.y), keypoints: [k.x, k.y, 2], num_keypoints: 1 } };
  }
  if (a.segmentation !== undefined) {
    const rle = storedMask(a);
    if (!rle) return NO_MASK;
    const counts = numericCounts(rle);
    const b = rleBBox({ size: rle.size, counts });
    return {
      kind: 'mask',
      body: { bbox: [b.x, b.y, b.width, b.height], area: rleArea({ size: rle.size, counts }), iscrowd: 0, segmentation: compressedRle(rle.size, counts) },
    };
  }
  if (a.polygon !== undefined) {
    const p = a.polygon as { path?: unknown; holes?: unknown };
    if (!isPath(p.path) || p.path.length < 3) return { kind: 'invalid', reason: 'polygon with fewer than 3 points' };
    const holes = Array.isArray(p.holes) ? p.holes.filter((h): h is Pt[] => isPath(h) && h.length >= 3) : [];
    if (holes.length === 0) {
      return { kind: 'polygon', body: { bbox: pathBBox(p.path), area: cocoArea(ringArea(p.path)), iscrowd: 0, segmentation: [p.path.flatMap(([x, y]) => [x, y])] } };
    }
    // The mask needs the image size; without one recorded, the extent of the shape stands in.
    const bb = pathBBox(p.path);
    const w = size?.width ?? Math.max(1, Math.ceil(bb[0] + bb[2]));
    const h = size?.height ?? Math.max(1, Math.ceil(bb[1] + bb[3]));
    const counts = Array.from(kernels.polygonsToRle([{ path: p.path, holes }], h, w));
    const rb = rleBBox({ size: [h, w], counts });
    return {
      kind: 'polygon',
      body: { bbox: [rb.x, rb.y, rb.width, rb.height], area: rleArea({ size: [h, w], counts }), iscrowd: 0, segmentation: compressedRle([h, w], counts) },
    };
  }
  const box = storedBox(a);
  if (!box) return NO_BOX;
  const { x, y, w, h } = box;
  return { kind: 'box', body: { bbox: [x, y, w, h], area: cocoArea(w * h), iscrowd: 0, segmentation: [boxRing(x, y, w, h)], ...BOX_MARK } };
}

/**
 * A mask as COCO polygons (mask_format 'polygon'): the kernel's trace simplified within `tolerance`
 * pixels, one ring per connected part with its holes joined in (keyholeRing); `holes` says whether
 * any part had one.
 */
export function maskAsPolygons(a: Record<string, unknown>, kernels: Kernels, tolerance = MASK_POLYGON_TOLERANCE): { kind: 'mask'; body: CocoAnnotationBody; holes: boolean } | { kind: 'invalid'; reason: string } {
  const rle = storedMask(a);
  if (!rle) return NO_MASK;
  const polygons = kernels.maskToPolygons(rle, { tolerance }).filter((p) => p.path.length >= 3);
  if (polygons.length === 0) return { kind: 'invalid', reason: 'empty mask' };
  const rings = polygons.map((p) => keyholeRing(p.path, p.holes).ring);
  const area = rings.reduce((sum, ring) => sum + ringArea(ring), 0);
  return {
    kind: 'mask',
    body: { bbox: pathBBox(polygons.flatMap((p) => p.path)), area: cocoArea(area), iscrowd: 0, segmentation: rings.map((ring) => ring.flatMap(([x, y]) => [x, y])) },
    holes: polygons.some((p) => p.holes.length > 0),
  };
}

/** One annotations file: its images and annotations, spooled. */
interface CocoFile {
  entry: string;
  images: Spool;
  /** One JSON line per annotation; those with keypoints start with their sparse points, turned into triples at the end (when the categories' lists are final). */
  annotations: Spool;
}

export class CocoWriter implements FormatWriter {
  /** 'annotations.json', or one file per split. */
  private readonly files = new Map<string, CocoFile>();
  private masksAsPolygons = 0;
  private holesKept = 0;
  private readonly categories = new Map<string, { id: number; name: string; supercategory: string; keypoints?: string[]; skeleton?: number[][] }>();
  private readonly leftOut = new LeftOut();
  private nextImageId = 1;
  private nextAnnotationId = 1;

  constructor(private readonly s: RunState) {
    for (const set of s.split ? s.split.names : [null]) {
      const key = set ?? 'all';
      this.files.set(key, {
        entry: set ? `annotations/instances_${set}.json` : 'annotations.json',
        images: new Spool(path.join(s.tmp, `images-${key}.jsonl`)),
        annotations: new Spool(path.join(s.tmp, `annotations-${key}.jsonl`), '\n'),
      });
    }
    for (const c of s.project.classes) {
      if (s.classFilter && !s.classFilter.has(c.name)) continue;
      const category = this.category(c.name, false);
      // A skeleton class: its points in order, and its edges 1-based as COCO writes them (ours are 0-based).
      if (c.kind === 'skeleton' && c.skeleton) Object.assign(category, { keypoints: [...c.skeleton.points], skeleton: c.skeleton.edges.map(([a, b]) => [a + 1, b + 1]) });
      // The point names the import kept (a COCO category's keypoints list): triples keep their places.
      else if (c.keypoints?.length) Object.assign(category, { keypoints: [...c.keypoints], skeleton: [] });
    }
  }

  /** The category of a class; `parts`: labelled points whose names join its keypoints list (first seen, first listed). */
  private category(name: string, keypoint: boolean, parts: readonly SparsePoint[] = []) {
    let c = this.categories.get(name);
    if (!c) {
      c = { id: this.categories.size + 1, name, supercategory: '' };
      this.categories.set(name, c);
    }
    if (keypoint) {
      c.keypoints ??= [];
      c.skeleton ??= [];
      for (const [part] of parts) if (!c.keypoints.includes(part)) c.keypoints.push(part);
      // A lone point of a keypoint class is the part 'point'.
      if (parts.length === 0 && !c.keypoints.includes(POINT_PART)) c.keypoints.push(POINT_PART);
    }
    return c;
  }

  imagePath(_image: ImageRow, rel: string): string {
    return `images/${rel}`;
  }

  async image(image: ImageRow, rel: string, annotations: Record<string, unknown>[]): Promise<void> {
    const report = this.s.report;
    const id = this.nextImageId++;
    const size = imageSize(image);
    const file = this.files.get(splitOf(this.s, image) ?? 'all')!;
    await file.images.push(JSON.stringify({ id, file_name: `images/${rel}`, width: image.imageWidth ?? 0, height: image.imageHeight ?? 0 }));
    const { singles, groups } = groupInstances(annotations);
    for (const a of singles) {
      if (this.s.slice.due()) await this.s.slice.pause();
      const className = String(a.name ?? '');
      if (Array.isArray(a.points)) {
        await file.annotations.push(JSON.stringify({ id: this.nextAnnotationId++, image_id: id, ...this.skeletonRecord(a, className) }));
        report.annotations += 1;
        continue;
      }
      const converted = convert(() => this.convertOne(a, size));
      if (converted.kind === 'polyline') {
        this.leftOut.add('polyline', className);
        continue;
      }
      if (converted.kind === 'invalid') {
        report.invalid.add(`images/${rel}\t${className}\t${String(a.id ?? '')}\t${converted.reason}`);
        continue;
      }
      const category = this.category(className, converted.kind === 'keypoint');
      report.annotations += 1;
      const attributes = attributesObject(a);
      const { keypoints: _kp, num_keypoints: _n, ...body } = converted.body;
      const record = { id: this.nextAnnotationId++, image_id: id, category_id: category.id, ...body, ...(crowdOf(a) ? { iscrowd: 1 } : {}), ...(attributes ? { attributes } : {}) };
      await file.annotations.push(JSON.stringify(converted.kind === 'keypoint' ? { points: [[POINT_PART, _kp![0], _kp![1], 2]], ...record } : record));
    }
    for (const group of groups) {
      const joined = joinInstance(group);
      const category = this.category(joined.className, joined.points.length > 0, joined.points);
      report.annotations += group.length;
      const { className: _c, points, ...body } = joined;
      const record = { id: this.nextAnnotationId++, image_id: id, category_id: category.id, ...body };
      await file.annotations.push(JSON.stringify(points.length ? { points, ...record } : record));
    }
    this.leftOut.flush(report, `images/${rel}`);
  }

  /**
   * A skeleton instance: `keypoints` as its points' [x, y, v] triples in the class's order (the
   * category's keypoints list), `num_keypoints` the labelled ones, bbox its box, area the box's, and
   * as segmentation a zero-area polygon at the box's corner (pycocotools loads it; an import drops it).
   */
  private skeletonRecord(a: Record<string, unknown>, className: string) {
    const points = (a.points as { x: number; y: number; v: number }[]).filter((p) => p && isNum(p.x) && isNum(p.y) && isNum(p.v));
    const category = this.category(className, false);
    // A skeleton whose class is gone or is not a skeleton class names its points by number.
    if (!category.keypoints?.length) Object.assign(category, { keypoints: points.map((_, i) => String(i + 1)), skeleton: [] });
    const box = storedBox(a) ?? skeletonBox(points);
    const attributes = attributesObject(a);
    return {
      category_id: category.id,
      bbox: [box.x, box.y, box.w, box.h],
      area: cocoArea(box.w * box.h),
      iscrowd: crowdOf(a) ? 1 : 0,
      segmentation: pointSegmentation(box.x, box.y),
      keypoints: points.flatMap((p) => (p.v > 0 ? [p.x, p.y, p.v] : [0, 0, 0])),
      num_keypoints: points.filter((p) => p.v > 0).length,
      ...(attributes ? { attributes } : {}),
    };
  }

  /** toCoco, or with mask_format 'polygon' a mask as polygons. */
  private convertOne(a: Record<string, unknown>, size: ImageSize | null): Converted {
    if (this.s.maskFormat !== 'polygon' || a.segmentation === undefined) return toCoco(a, size, this.s.kernels!);
    const c = maskAsPolygons(a, this.s.kernels!);
    if (c.kind === 'mask') {
      this.masksAsPolygons += 1;
      if (c.holes) this.holesKept += 1;
      return { kind: 'mask', body: c.body };
    }
    return c;
  }

  async finish(): Promise<void> {
    const info = { description: this.s.name, version: VELLUM_COCO_VERSION, year: new Date().getUTCFullYear(), contributor: 'Vellum', date_created: new Date().toISOString() };
    const categories = [...this.categories.values()];
    const head = `{"info":${JSON.stringify(info)},"licenses":[],"categories":${JSON.stringify(categories)},\n"images":[\n`;
    const names = new Map(categories.map((c) => [c.id, c.keypoints ?? []]));
    for (const file of this.files.values()) {
      await file.images.close();
      await file.annotations.close();
      await this.s.sink.room();
      // The spools are read while the entry is written; run() removes them only after the zip ended.
      this.s.sink.add(Readable.from(fileBody(file, head, names)), file.entry, true);
    }
  }

  readme(): string[] {
    const split = this.s.split;
    return [
      split
        ? `Layout: annotations/instances_{${split.names.join(',')}}.json (COCO instances, one file per split: the same categories, image and annotation ids unique across the files)`
        : 'Layout: annotations.json (COCO instances: info, licenses, categories, images, annotations)',
      '        images/<folder path>/<filename> (when image files are included; file_name in annotations.json is this path)',
      '',
      'Shapes: boxes as bbox with the box as a polygon segmentation; polygons as polygon segmentations (area by shoelace);',
      this.s.maskFormat === 'polygon'
        ? `polygons with holes as compressed RLE (pycocotools format, iscrowd 0, area from the mask); masks as polygons (mask_format polygon): traced, simplified within ${MASK_POLYGON_TOLERANCE} pixel(s), one per connected part, its holes joined to its outer ring by zero-width keyhole bridges so pycocotools leaves them empty (${this.holesKept} of ${this.masksAsPolygons} mask(s) had holes);`
        : 'polygons with holes and masks as compressed RLE (pycocotools format, iscrowd 0, area from the mask);',
      "a skeleton as one annotation: keypoints [x, y, v] per point of its class in order (v 0 not labelled, 1 occluded, 2 visible),",
      'num_keypoints the labelled ones, bbox its box, area the box\'s, segmentation a zero-area polygon at the box\'s corner; its category',
      'carries the keypoints names and the skeleton edges (1-based, as COCO numbers them);',
      "a lone keypoint as keypoints [x, y, 2] at its category's part 'point' (bbox [x, y, 0, 0], area 0,",
      'segmentation the point as a zero-area polygon [[x, y, x, y, x, y]] so segm tooling loads it);',
      'shapes that share an instance (an imported COCO object: a skeleton\'s labelled points with their box or',
      'outline, or several rings) are one annotation again: its rings or mask, its box, and one [x, y, v] per name',
      "of the category's keypoints list (v 1 for a point marked not visible, 0 0 0 for a part it lacks).",
      'Named attributes ({name, value}) are written as the annotation\'s attributes {name: value}.',
      '',
      ...leftOutSection(this.s.report, 'polyline', 'Polylines', 'COCO has no open paths'),
    ];
  }
}

/** One annotations file's JSON, streamed from its spools; keypoint annotations get their triples now that the categories' lists are final. */
async function* fileBody(file: CocoFile, head: string, names: Map<number, string[]>): AsyncGenerator<Buffer> {
  yield Buffer.from(head);
  yield* file.images.chunks();
  yield Buffer.from('\n],\n"annotations":[\n');
  let pending = '';
  let first = true;
  for await (const line of file.annotations.lines()) {
    let text = line;
    if (line.startsWith('{"points":')) {
      const { points, ...record } = JSON.parse(line) as { category_id: number; points: SparsePoint[] };
      text = JSON.stringify({ ...record, ...keypointTriples(points, names.get(record.category_id) ?? []) });
    }
    pending += first ? text : `,\n${text}`;
    first = false;
    if (pending.length >= 64 * 1024) {
      yield Buffer.from(pending);
      pending = '';
    }
  }
  if (pending) yield Buffer.from(pending);
  yield Buffer.from('\n]}\n');
}
