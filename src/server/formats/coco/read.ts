// COCO instances JSON: `annotations/instances_<split>.json` (or person_keypoints_*, or any .json
// with images / annotations / categories lists) beside `images/<split>/`, Roboflow's
// `<split>/_annotations.coco.json` beside its images, Vellum's own COCO export (annotations.json,
// file_name 'images/<folder>/<name>'), or a lone .json (annotation-only).
//
// Memory: each JSON file is streamed once (stream-json tokens, one annotation assembled at a time).
// Images (id -> file_name, width, height) and categories stay in memory; annotations are spilled
// as JSON lines to options.tmpDir, with, per annotation, its byte offset, length and the next
// annotation of the same image (three numbers each). Images are then yielded one at a time in the
// order of the `images` list, each with its annotations read back from the spill (consecutive lines
// in one read). Only one image's annotations are ever in memory: the interface hands them over
// together, so a 100,000-annotation image holds those (not the file's object tree).
//
// Decisions:
// - Geometry of an annotation: its segmentation when it has one (polygon rings -> one polygon
//   shape each, a ring under 3 points skipped with its reason; RLE, compressed or not -> one mask),
//   otherwise its bbox as a box. A single ring that is exactly the bbox rectangle is a box only when
//   the annotation carries Vellum's box mark (`vellum_shape: 'box'`, ./rules.ts: how Vellum's COCO
//   export writes boxes); without it a rectangle polygon stays a polygon (issue 32), except in a
//   Vellum export from before the mark (info contributor 'Vellum', version '1.0': every box unmarked).
//   A ring with zero-width bridges (an edge walked there and back: Vellum's keyholed masks, a
//   converter that joins an object's rings) is cut at them (../rings.ts splitBridged): one polygon
//   with its holes per outer ring; a ring without bridges stays exactly as written.
// - Keypoints (issue 33): a category whose annotations carry keypoints is a skeleton class (its
//   point names in order, unnamed points by their 1-based number; COCO's 1-based skeleton as
//   0-based edges), and each of its annotations one skeleton instance: its [x, y, v] triples as
//   points in the category's order, its bbox as the instance's box. Its segmentation (not the
//   zero-area polygon Vellum's export writes for a skeleton) is kept beside it as polygon or mask
//   annotations of the class "<category> segmentation" (outlineClassName: a skeleton class holds
//   skeletons only), sharing its `instance` (one warning counts them); one without keypoints keeps
//   its segmentation alone, and one with neither is skipped with its reason. A lone point of a category whose
//   keypoints are ['point'] or none (how Vellum exports its keypoint annotations) is a plain
//   keypoint, and so are the points of a category with more than MAX_SKELETON_POINTS names (each
//   a keypoint shape with extra {part, instance}, v = 1 adding attribute {name: 'visible', value: false}).
// - instance is the COCO annotation id as a string (`a<index>` without an id); every shape of an
//   annotation that becomes several shapes (keypoints, several rings) carries it.
// - iscrowd 1 is kept as extra {iscrowd: 1} on the shapes (Vellum has no crowd flag of its own).
// - `attributes` {name: value} -> NamedAttribute list on every shape of the annotation; values that
//   are arrays or objects are kept as their JSON text, with a warning.
// - Class type from the geometry seen: any keypoints -> keypoint, else any polygon or mask ->
//   polygon, else box; categories without annotations leave the type to the importer. A keypoint
//   class keeps its category's point names in order (ImportedClass.keypoints; unnamed points by
//   their 1-based number), so the COCO export writes every triple back in its place (issue 32).
// - ImportedImage.folder is the image's folder inside the archive below `images/` (and below the
//   folder that holds the dataset): 'train2017' for images/train2017/x.jpg, 'train' for Roboflow's
//   train/x.jpg, '' for annotation-only files.
// - Image files in the archive that no COCO file lists are yielded last, without annotations
//   (with one warning saying how many).
// - Several COCO files are each read once before any image is yielded; an image that several of
//   them list (instances_ and person_keypoints_ of one split) is yielded once with the annotations
//   of all of them (matched by its archive entry, or by file name when the archive lacks it).
// The rules the writer (./write.ts) writes the same way are ./rules.ts and ../shapes.ts.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import Assembler from 'stream-json/assembler.js';
import type { Token } from 'stream-json/parser.js';
import { MAX_SKELETON_EDGES, MAX_SKELETON_POINTS, type AnnotationType, type SkeletonDefinition } from '../../../contract/projects';
import {
  ImportInputError,
  type DatasetRead,
  type FormatReader,
  type ImportArchive,
  type ImportedAnnotation,
  type ImportedClass,
  type ImportedImage,
  type ImportedShape,
  type ImportReporter,
  type NamedAttribute,
  type Point,
  type ReadOptions,
} from '../reader';
import { EntryIndex, attributeOf, baseName, dirName, extOf, headText, isImagePath, joinPath, toNumber, uniquePointNames } from '../read-common';
import { scanJson, type ScanControl } from '../json-scan';
import { isBoxRing, ringArea } from '../shapes';
import { splitBridged } from '../rings';
import { crowdOf, hasBoxMark, isLegacyVellumInfo, isLonePointCategory, parseRle, visibilityAttributes } from './rules';

const NAMED_COCO_FILE = /(^|\/)((instances|person_keypoints)_[^/]*|_annotations\.coco)\.json$/i;
const COCO_LIST_KEY = /"(images|annotations|categories)"\s*:\s*\[/;
/** At most this many unnamed .json files are opened to see whether they are COCO. */
const MAX_PEEKED_FILES = 20;
/** Bytes of spilled annotations read back at once. */
const READ_CHUNK = 8 * 1024 * 1024;

const KIND_BOX = 1;
const KIND_POLYGON = 2;
const KIND_KEYPOINT = 4;
/** Labelled keypoints with a segmentation of some area: the skeleton's outline class is needed. */
const KIND_OUTLINE = 8;

const OUTLINE_SUFFIX = ' segmentation';
/**
 * The class a skeleton category's segmentations go to (issue 33): a skeleton class holds skeleton
 * instances only (the server refuses other shapes in it), so "person"'s outlines are polygons and
 * masks of "person segmentation", within the 100 characters of a class name.
 */
export const outlineClassName = (skeletonClass: string): string => `${skeletonClass.slice(0, 100 - OUTLINE_SUFFIX.length)}${OUTLINE_SUFFIX}`;

/** Ids as text, so that an image id 1 and an image_id "1" meet. */
type Key = string;
const keyOf = (v: unknown): Key | null => (typeof v === 'number' && Number.isFinite(v) ? String(v) : typeof v === 'string' && v !== '' ? v : null);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

interface CocoImage {
  key: Key;
  fileName: string;
  width?: number;
  height?: number;
}

interface CocoCategory {
  name: string;
  keypoints: string[];
  /** COCO's skeleton: 1-based point index pairs, as written. */
  skeleton: unknown[];
  supercategory: string;
}

/** One COCO file after its single pass: images, categories, and where each image's annotations sit in the spill. */
interface ScannedFile {
  file: string;
  images: CocoImage[];
  categories: Map<Key, CocoCategory>;
  /** Category key -> KIND_* bits of the geometry its annotations carry. */
  kinds: Map<Key, number>;
  /** Category key -> the most [x, y, v] triples one of its annotations has. */
  points: Map<Key, number>;
  /** A Vellum export from before the box mark: a ring that is its bbox's rectangle is a box. */
  legacyBoxes: boolean;
  spillPath: string;
  offset: number[];
  length: number[];
  next: number[];
  /** Image key -> [first, last] annotation number. */
  lists: Map<Key, [number, number]>;
  /** Skeleton instances whose segmentation was kept as annotations of their own. */
  segmentationsKept: number;
}

async function cocoFiles(archive: ImportArchive, peekLimit: number): Promise<string[]> {
  const json = archive.paths.filter((p) => extOf(p) === 'json' && baseName(p).toLowerCase() !== 'vellum.json');
  const named = json.filter((p) => NAMED_COCO_FILE.test(p));
  if (named.length > 0) return named;
  const found: string[] = [];
  for (const p of json.slice(0, peekLimit)) {
    if (COCO_LIST_KEY.test(await headText(archive, p))) found.push(p);
  }
  return found;
}

function ringOf(v: unknown): number[] | null {
  if (!Array.isArray(v)) return null;
  for (const n of v) if (typeof n !== 'number' || !Number.isFinite(n)) return null;
  return v as number[];
}

function bboxOf(v: unknown): [number, number, number, number] | null {
  const r = ringOf(v);
  return r && r.length === 4 ? [r[0]!, r[1]!, r[2]!, r[3]!] : null;
}

function hasLabelledKeypoint(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (let i = 2; i < v.length; i += 3) if (typeof v[i] === 'number' && v[i] > 0) return true;
  return false;
}

/** Whether a single ring is Vellum's export of a box: marked (or in a legacy Vellum file), and exactly the bbox rectangle. */
function markedBoxRing(a: Record<string, unknown>, ring: readonly number[], bbox: readonly number[] | null, legacy: boolean): boolean {
  return (legacy || hasBoxMark(a)) && isBoxRing(ring, bbox);
}

/** Whether a segmentation has an outline: an RLE, or a ring of some area (not the zero-area polygon Vellum's export writes for a skeleton). */
function hasOutline(seg: unknown): boolean {
  if (isRecord(seg)) return true;
  return Array.isArray(seg) && seg.some((r) => {
    const ring = ringOf(r);
    return ring !== null && ring.length >= 6 && ring.length % 2 === 0 && ringArea(pathOf(ring)) > 0;
  });
}

/** KIND_* of one raw annotation, for the class type. */
function kindOf(a: Record<string, unknown>, legacy: boolean): number {
  if (hasLabelledKeypoint(a.keypoints)) return KIND_KEYPOINT | (hasOutline(a.segmentation) ? KIND_OUTLINE : 0);
  const seg = a.segmentation;
  if (isRecord(seg)) return KIND_POLYGON;
  if (Array.isArray(seg) && seg.length > 0) {
    const ring = ringOf(seg[0]);
    return seg.length === 1 && ring && markedBoxRing(a, ring, bboxOf(a.bbox), legacy) ? KIND_BOX : KIND_POLYGON;
  }
  return KIND_BOX;
}

/** Collects one file's images and categories, and spills its annotations, in one streamed pass. */
class CocoScan {
  readonly scanned: ScannedFile;
  private readonly spill: fs.WriteStream;
  private spilled = 0;
  private depth = 0;
  private topKey: string | null = null;
  private section: 'images' | 'annotations' | 'categories' | null = null;
  private asm: Assembler | null = null;
  /** The top-level `info` object being assembled (Vellum's exports write it first). */
  private infoAsm: Assembler | null = null;
  private readonly counters = { images: 0, annotations: 0, categories: 0 };
  private readonly imageKeys = new Set<Key>();
  readonly seen = new Set<string>();

  constructor(
    file: string,
    spillPath: string,
    private readonly report: ImportReporter,
    private readonly control: ScanControl,
  ) {
    this.scanned = { file, images: [], categories: new Map(), kinds: new Map(), points: new Map(), legacyBoxes: false, spillPath, offset: [], length: [], next: [], lists: new Map(), segmentationsKept: 0 };
    this.spill = fs.createWriteStream(spillPath);
  }

  token(tok: Token): void {
    if (this.infoAsm) {
      this.infoAsm.consume(tok);
      if (this.infoAsm.done) {
        this.scanned.legacyBoxes = isLegacyVellumInfo(this.infoAsm.current);
        this.infoAsm = null;
      }
      return;
    }
    if (this.asm) {
      this.asm.consume(tok);
      if (this.asm.done) {
        const value = this.asm.current;
        this.asm = null;
        this.element(value);
      }
      return;
    }
    switch (tok.name) {
      case 'startObject':
      case 'startArray':
        if (this.depth === 0 && tok.name === 'startArray') throw new ImportInputError(`${this.scanned.file}: not a COCO file (the top level is a list, not an object)`);
        if (this.depth === 1 && tok.name === 'startObject' && this.topKey === 'info') {
          this.infoAsm = new Assembler();
          this.infoAsm.consume(tok);
          return;
        }
        if (this.depth === 1 && tok.name === 'startArray' && (this.topKey === 'images' || this.topKey === 'annotations' || this.topKey === 'categories')) {
          this.section = this.topKey;
          this.seen.add(this.topKey);
        } else if (this.depth === 2 && this.section) {
          this.asm = new Assembler();
          this.asm.consume(tok);
          return;
        }
        this.depth += 1;
        return;
      case 'endObject':
      case 'endArray':
        this.depth -= 1;
        if (this.depth === 1) this.section = null;
        return;
      case 'keyValue':
        if (this.depth === 1) this.topKey = tok.value;
        return;
      default:
        if (this.depth === 0) throw new ImportInputError(`${this.scanned.file}: not a COCO file (the top level is not an object)`);
        if (this.depth === 2 && this.section) this.element('value' in tok ? tok.value : null);
    }
  }

  private element(value: unknown): void {
    const section = this.section!;
    const index = this.counters[section]++;
    const where = `${this.scanned.file}: ${section}[${index}]`;
    if (!isRecord(value)) {
      this.report.skip(where, 'not an object');
      return;
    }
    if (section === 'images') this.image(value, where);
    else if (section === 'categories') this.category(value, where);
    else this.annotation(value, index);
  }

  private image(v: Record<string, unknown>, where: string): void {
    const key = keyOf(v.id);
    const fileName = typeof v.file_name === 'string' ? v.file_name.replace(/\\/g, '/').trim() : '';
    if (key === null || fileName === '') {
      this.report.skip(where, 'an image needs an id and a file_name');
      return;
    }
    if (this.imageKeys.has(key)) {
      this.report.skip(where, `duplicate image id ${key}`);
      return;
    }
    this.imageKeys.add(key);
    const width = toNumber(v.width);
    const height = toNumber(v.height);
    this.scanned.images.push({ key, fileName, width: width && width > 0 ? width : undefined, height: height && height > 0 ? height : undefined });
  }

  private category(v: Record<string, unknown>, where: string): void {
    const key = keyOf(v.id);
    const name = typeof v.name === 'string' ? v.name.trim() : typeof v.name === 'number' ? String(v.name) : '';
    if (key === null || name === '') {
      this.report.skip(where, 'a category needs an id and a name');
      return;
    }
    if (this.scanned.categories.has(key)) {
      this.report.skip(where, `duplicate category id ${key}`);
      return;
    }
    const keypoints = Array.isArray(v.keypoints) ? v.keypoints.map((k) => String(k)) : [];
    this.scanned.categories.set(key, { name, keypoints, skeleton: Array.isArray(v.skeleton) ? v.skeleton : [], supercategory: typeof v.supercategory === 'string' ? v.supercategory : '' });
  }

  private annotation(v: Record<string, unknown>, index: number): void {
    const s = this.scanned;
    const imageKey = keyOf(v.image_id);
    const line = `${JSON.stringify([index, v])}\n`;
    const n = s.offset.length;
    s.offset.push(this.spilled);
    s.length.push(Buffer.byteLength(line));
    s.next.push(-1);
    this.spilled += s.length[n]!;
    const list = s.lists.get(imageKey ?? '');
    if (list) {
      s.next[list[1]] = n;
      list[1] = n;
    } else {
      s.lists.set(imageKey ?? '', [n, n]);
    }
    const cat = keyOf(v.category_id);
    if (cat !== null) {
      s.kinds.set(cat, (s.kinds.get(cat) ?? 0) | kindOf(v, s.legacyBoxes));
      if (Array.isArray(v.keypoints)) s.points.set(cat, Math.max(s.points.get(cat) ?? 0, Math.floor(v.keypoints.length / 3)));
    }
    if (!this.spill.write(line)) this.control.waitFor(once(this.spill, 'drain'));
  }

  async close(): Promise<void> {
    this.spill.end();
    await once(this.spill, 'close');
  }

  abandon(): void {
    this.spill.destroy();
  }
}

async function scanFile(archive: ImportArchive, file: string, n: number, options: ReadOptions): Promise<ScannedFile | null> {
  const holder: { scan?: CocoScan } = {};
  const spillPath = path.join(options.tmpDir, `coco-${n}.jsonl`);
  try {
    await scanJson(archive, file, (control) => (holder.scan = new CocoScan(file, spillPath, options.report, control)), options.signal);
  } catch (err) {
    holder.scan?.abandon();
    throw err;
  }
  const done = holder.scan!;
  await done.close();
  const missing = ['images', 'annotations', 'categories'].filter((k) => !done.seen.has(k));
  if (missing.length > 0) {
    options.report.skip(done.scanned.file, `not a COCO instances file (no ${missing.join(', ')} list)`);
    await fsp.rm(spillPath, { force: true });
    return null;
  }
  const s = done.scanned;
  const known = new Set(s.images.map((i) => i.key));
  for (const [key, [first]] of s.lists) {
    if (known.has(key)) continue;
    let count = 0;
    for (let i = first; i >= 0; i = s.next[i]!) count += 1;
    options.report.skip(`${s.file}: annotations of image_id ${key === '' ? '(none)' : key}`, `${count} annotation(s) for an image id that is not in images`);
  }
  return s;
}

/** Reads the spilled lines of one image's annotations: [index in the file, annotation]. */
async function readBack(fh: fsp.FileHandle, s: ScannedFile, key: Key): Promise<[number, Record<string, unknown>][]> {
  const list = s.lists.get(key);
  const out: [number, Record<string, unknown>][] = [];
  let i = list ? list[0] : -1;
  while (i >= 0) {
    // A run of consecutive lines, up to READ_CHUNK bytes, in one read.
    const start = s.offset[i]!;
    let end = start + s.length[i]!;
    let j = s.next[i]!;
    while (j >= 0 && s.offset[j] === end && end - start < READ_CHUNK) {
      end += s.length[j]!;
      j = s.next[j]!;
    }
    const buf = Buffer.alloc(end - start);
    await fh.read(buf, 0, buf.length, start);
    for (const line of buf.toString('utf8').split('\n')) if (line) out.push(JSON.parse(line) as [number, Record<string, unknown>]);
    i = j;
  }
  return out;
}

interface Shaped {
  shape: ImportedShape;
  extra?: Record<string, unknown>;
  attributes?: NamedAttribute[];
}

/** pycocotools' RLE checked (./rules.ts parseRle) as a mask shape, or the reason it cannot be read. */
function maskOf(seg: Record<string, unknown>): { shape: ImportedShape; area: number } | string {
  const rle = parseRle(seg);
  return typeof rle === 'string' ? rle : { shape: { type: 'mask', size: rle.size, counts: rle.counts }, area: rle.area };
}

/** One COCO annotation -> its shapes; what cannot be read is skipped with a reason. `skeletons`: the skeleton classes by name. */
function convert(a: Record<string, unknown>, index: number, s: ScannedFile, report: ImportReporter, skeletons: ReadonlyMap<string, SkeletonDefinition>): ImportedAnnotation[] {
  const where = `${s.file}: annotations[${index}]${a.id !== undefined ? ` (id ${String(a.id)})` : ''}`;
  const catKey = keyOf(a.category_id);
  const category = catKey === null ? undefined : s.categories.get(catKey);
  if (!category) {
    report.skip(where, `unknown category_id ${JSON.stringify(a.category_id ?? null)}`);
    return [];
  }
  const skeleton = skeletons.get(category.name);
  const instanceKey = a.id !== undefined && a.id !== null ? String(a.id) : `a${index}`;
  if (skeleton) return skeletonInstance(a, where, category.name, skeleton.points.length, s, report, instanceKey);
  const points: Shaped[] = [];
  if (a.keypoints !== undefined) {
    const kp = ringOf(a.keypoints);
    if (!kp || kp.length % 3 !== 0) {
      report.skip(where, 'keypoints must be a list of x, y, v numbers; keypoints left out');
    } else {
      for (let i = 0; i < kp.length; i += 3) {
        const v = kp[i + 2]!;
        if (v <= 0) continue;
        const part = category.keypoints[i / 3] ?? String(i / 3 + 1);
        points.push({ shape: { type: 'keypoint', x: kp[i]!, y: kp[i + 1]! }, extra: { part }, attributes: visibilityAttributes(v) });
      }
    }
  }
  const keypoint = points.length > 0;
  const bbox = a.bbox === undefined ? null : bboxOf(a.bbox);
  if (a.bbox !== undefined && (!bbox || bbox[2] < 0 || bbox[3] < 0)) report.skip(where, 'bbox must be [x, y, width, height] with a width and height not negative; bbox left out');
  // A segmentation that was given but could not be read is reported; the bbox does not silently stand in for it.
  const { geometry, rejected } = segmentationShapes(a, where, keypoint ? 'outline' : 'object', bbox, s, report);
  if (geometry.length === 0 && !rejected && bbox && bbox[2] >= 0 && bbox[3] >= 0 && !(keypoint && (bbox[2] === 0 || bbox[3] === 0))) {
    const [x, y, w, h] = bbox;
    geometry.push({ shape: { type: 'box', x, y, w, h } });
  }
  const shapes = [...geometry, ...points];
  if (shapes.length === 0) {
    if (!rejected) report.skip(where, 'no bbox, segmentation or labelled keypoint to import');
    return [];
  }
  const attributes: NamedAttribute[] = isRecord(a.attributes) ? Object.entries(a.attributes).map(([k, v]) => attributeOf(k, v, where, report)) : [];
  if (a.attributes !== undefined && !isRecord(a.attributes)) report.warn(`${where}: attributes is not an object; left out`);
  // Vellum's own export of a lone point (category keypoints ['point']) comes back as a plain keypoint.
  const lonePoint = shapes.length === 1 && points.length === 1 && isLonePointCategory(category.keypoints);
  if (lonePoint) delete points[0]!.extra;
  const instance = (keypoint && !lonePoint) || shapes.length > 1 ? instanceKey : null;
  return shapes.map((sh) => {
    const extra: Record<string, unknown> = { ...sh.extra };
    if (instance !== null) extra.instance = instance;
    if (crowdOf(a)) extra.iscrowd = 1;
    const attrs = [...attributes, ...(sh.attributes ?? [])];
    return {
      class: category.name,
      shape: sh.shape,
      ...(attrs.length > 0 ? { attributes: attrs } : {}),
      ...(Object.keys(extra).length > 0 ? { extra } : {}),
    };
  });
}

/**
 * The shapes of an annotation's segmentation: each polygon ring (cut at zero-width bridges) or its
 * RLE mask. `outline`: the segmentation outlines a keypoint object, so a flat ring or an empty mask
 * is no shape (Vellum's COCO export writes a skeleton's segmentation as a zero-area polygon) and a
 * ring is never read as Vellum's box mark. `rejected`: a segmentation was given and could not be read.
 */
function segmentationShapes(a: Record<string, unknown>, where: string, role: 'object' | 'outline', bbox: readonly number[] | null, s: ScannedFile, report: ImportReporter): { geometry: Shaped[]; rejected: boolean } {
  const outline = role === 'outline';
  const geometry: Shaped[] = [];
  let rejected = false;
  const seg = a.segmentation;
  if (Array.isArray(seg) && seg.length > 0) {
    seg.forEach((raw, j) => {
      const ring = ringOf(raw);
      if (!ring || ring.length % 2 !== 0) {
        rejected = true;
        report.skip(`${where} segmentation[${j}]`, 'a polygon must be a flat list of x, y numbers');
        return;
      }
      if (!outline && seg.length === 1 && markedBoxRing(a, ring, bbox, s.legacyBoxes)) {
        const [x, y, w, h] = bbox!;
        geometry.push({ shape: { type: 'box', x: x!, y: y!, w: w!, h: h! } });
        return;
      }
      const path = pathOf(ring);
      if (path.length < 3) {
        rejected = true;
        report.skip(`${where} segmentation[${j}]`, `a polygon needs at least 3 points, this one has ${path.length}`);
        return;
      }
      if (outline && ringArea(path) === 0) return;
      // A ring whose holes or parts are joined by zero-width bridges (Vellum's polygon masks, Ultralytics-style) is cut back into them.
      for (const p of splitBridged(path)) geometry.push({ shape: { type: 'polygon', path: p.path, ...(p.holes.length ? { holes: p.holes } : {}) } });
    });
  } else if (isRecord(seg)) {
    const mask = maskOf(seg);
    if (typeof mask === 'string') {
      rejected = true;
      report.skip(`${where} segmentation`, mask);
    } else if (!(outline && mask.area === 0)) {
      geometry.push({ shape: mask.shape });
    }
  } else if (seg !== undefined && !Array.isArray(seg)) {
    report.warn(`${where}: segmentation is neither a list of polygons nor an RLE object; the bbox is used`);
  }
  return { geometry, rejected };
}

/**
 * An annotation of a skeleton category: one skeleton instance, its [x, y, v] triples as points in
 * the category's order (missing ones not labelled), its bbox as the instance's box (else the box of
 * its points); and its segmentation kept beside it (issue 33) as polygon or mask annotations of the
 * class outlineClassName names, tied to it by `instance` (the COCO annotation id). A skeleton
 * instance has no outline of its own, and a person's outline is worth as much as its points. One
 * without keypoints keeps its segmentation alone; with neither it is skipped.
 */
function skeletonInstance(a: Record<string, unknown>, where: string, className: string, count: number, s: ScannedFile, report: ImportReporter, instanceKey: string): ImportedAnnotation[] {
  const kp = ringOf(a.keypoints);
  const bbox = bboxOf(a.bbox);
  const { geometry } = segmentationShapes(a, where, 'outline', bbox, s, report);
  const attributes: NamedAttribute[] = isRecord(a.attributes) ? Object.entries(a.attributes).map(([k, v]) => attributeOf(k, v, where, report)) : [];
  const outlines: ImportedAnnotation[] = geometry.map(({ shape }) => ({
    class: outlineClassName(className),
    shape,
    ...(attributes.length ? { attributes } : {}),
    extra: { instance: instanceKey, ...(crowdOf(a) ? { iscrowd: 1 } : {}) },
  }));
  if (!kp || kp.length % 3 !== 0) {
    const why = `class "${className.slice(0, 100)}" is a skeleton class: an annotation needs keypoints, a list of x, y, v numbers`;
    if (outlines.length === 0) report.skip(where, why);
    else if (a.keypoints !== undefined) report.skip(`${where} keypoints`, `${why}; its segmentation is kept`);
    return outlines;
  }
  if (kp.length / 3 > count) report.warn(`${where}: ${kp.length / 3} keypoints, the class names ${count}; the rest left out`);
  const points = Array.from({ length: count }, (_, i) => (i * 3 < kp.length ? { x: kp[i * 3]!, y: kp[i * 3 + 1]!, v: kp[i * 3 + 2]! } : { x: 0, y: 0, v: 0 }));
  if (outlines.length > 0) s.segmentationsKept += 1;
  return [
    {
      class: className,
      shape: { type: 'skeleton', points, ...(bbox && bbox[2] >= 0 && bbox[3] >= 0 ? { box: { x: bbox[0], y: bbox[1], w: bbox[2], h: bbox[3] } } : {}) },
      ...(attributes.length ? { attributes } : {}),
      ...(crowdOf(a) ? { extra: { iscrowd: 1 } } : {}),
    },
    ...outlines,
  ];
}

const pathOf = (ring: readonly number[]): Point[] => Array.from({ length: ring.length / 2 }, (_, k): Point => [ring[2 * k]!, ring[2 * k + 1]!]);

/**
 * Categories whose annotations carry keypoints (other than Vellum's lone points) become skeleton
 * classes (issue 33): their point names in order (unnamed ones by their 1-based number, a repeated
 * name made unique by its number), and COCO's 1-based skeleton as 0-based edges (an edge that
 * names no point, joins a point to itself or repeats another is left out, with a warning). More
 * points than a skeleton may have: the category stays a keypoint class of separate points.
 */
function skeletonClasses(scans: ScannedFile[], report: ImportReporter): Map<string, SkeletonDefinition> {
  const out = new Map<string, SkeletonDefinition>();
  for (const s of scans) {
    for (const [key, c] of s.categories) {
      if (out.has(c.name) || !((s.kinds.get(key) ?? 0) & KIND_KEYPOINT)) continue;
      const names = pointNames(c, s.points.get(key) ?? 0);
      if (names.length === 0 || names.length > MAX_SKELETON_POINTS) continue;
      const points = uniquePointNames(names);
      const edges: [number, number][] = [];
      const edgeKeys = new Set<string>();
      let dropped = 0;
      for (const e of c.skeleton.slice(0, MAX_SKELETON_EDGES)) {
        const pair = ringOf(e);
        const [a, b] = pair && pair.length === 2 ? [pair[0]! - 1, pair[1]! - 1] : [-1, -1];
        const key = `${Math.min(a, b)},${Math.max(a, b)}`;
        if (!Number.isInteger(a) || !Number.isInteger(b) || a < 0 || b < 0 || a >= points.length || b >= points.length || a === b || edgeKeys.has(key)) {
          dropped += 1;
          continue;
        }
        edgeKeys.add(key);
        edges.push([a, b]);
      }
      if (dropped + Math.max(0, c.skeleton.length - MAX_SKELETON_EDGES) > 0) report.warn(`${s.file}: category "${c.name.slice(0, 100)}": ${dropped + Math.max(0, c.skeleton.length - MAX_SKELETON_EDGES)} skeleton edge(s) left out (not two different points of its keypoints, repeated, or past ${MAX_SKELETON_EDGES})`);
      out.set(c.name, { points, edges });
    }
  }
  return out;
}

/** The image's folder in the archive below `images/` and below the dataset's own folder. */
function folderOf(entry: string, root: string): string {
  let rel = root && entry.startsWith(`${root}/`) ? entry.slice(root.length + 1) : entry;
  if (rel.toLowerCase().startsWith('images/')) rel = rel.slice('images/'.length);
  return dirName(rel);
}

/** Where the image's bytes are: images/<split>/, the JSON's folder, images/, file_name as a path, or the only image of that name. */
function entryOf(index: EntryIndex, file: string, fileName: string): string | undefined {
  const jsonDir = dirName(file);
  const root = dirName(jsonDir);
  const split = /^(?:instances|person_keypoints)_(.+)\.json$/i.exec(baseName(file))?.[1];
  const safe = !/^[a-z]:|^\/|(^|\/)\.\.(\/|$)/i.test(fileName);
  const name = safe ? fileName : baseName(fileName);
  const candidates = [
    ...(split ? [joinPath(root, 'images', split, name), joinPath(root, split, name)] : []),
    joinPath(jsonDir, name),
    joinPath(root, 'images', name),
    joinPath(root, name),
    name,
  ];
  return index.first(candidates) ?? index.imageByBaseName(fileName);
}

function classType(bits: number): AnnotationType | undefined {
  if (bits & KIND_KEYPOINT) return 'keypoint';
  if (bits & KIND_POLYGON) return 'polygon';
  if (bits & KIND_BOX) return 'box';
  return undefined;
}

/**
 * The point names of a category, in its order: its keypoints list, and past its end (or for an
 * unnamed list) each point's 1-based number, as convert() names the parts. None for a category of
 * lone points (Vellum's ['point']).
 */
function pointNames(c: CocoCategory, triples: number): string[] {
  if (isLonePointCategory(c.keypoints) && triples <= 1) return [];
  const names = [...c.keypoints];
  for (let i = names.length; i < triples; i++) names.push(String(i + 1));
  return names;
}

/** Categories as classes (skeleton categories as skeleton classes); one without annotations that is another's supercategory (Roboflow's dataset-name category 0) is left out. */
function classesOf(scans: ScannedFile[], skeletons: ReadonlyMap<string, SkeletonDefinition>): ImportedClass[] {
  const byName = new Map<string, { bits: number; keypoints: string[] }>();
  const supers = new Set<string>();
  for (const s of scans) {
    for (const [key, c] of s.categories) {
      const seen = byName.get(c.name) ?? { bits: 0, keypoints: [] };
      seen.bits |= s.kinds.get(key) ?? 0;
      // The first file that names the category's points gives their order (instances_ and person_keypoints_ of one split agree).
      if (seen.keypoints.length === 0) seen.keypoints = pointNames(c, s.points.get(key) ?? 0);
      byName.set(c.name, seen);
      if (c.supercategory !== c.name) supers.add(c.supercategory);
    }
  }
  return [...byName].filter(([name, { bits }]) => bits !== 0 || !supers.has(name)).flatMap(([name, { bits, keypoints }]): ImportedClass[] => {
    const skeleton = skeletons.get(name);
    // A skeleton category with segmentations: its outline class beside it (unless a category already has that name).
    if (skeleton) return bits & (KIND_OUTLINE | KIND_POLYGON) && !byName.has(outlineClassName(name)) ? [{ name, skeleton }, { name: outlineClassName(name), type: 'polygon' }] : [{ name, skeleton }];
    const type = classType(bits);
    return [{ name, ...(type ? { type } : {}), ...(type === 'keypoint' && keypoints.length > 0 ? { keypoints } : {}) }];
  });
}

interface MergedImage {
  fileName: string;
  entry?: string;
  folder: string;
  width?: number;
  height?: number;
  /** The files that list it (their number in `scans`) and its id in each. */
  parts: { scan: number; key: Key }[];
}

/**
 * Every listed image once, in file order: an image that several files list (instances_ and
 * person_keypoints_ of one split), by its archive entry or, without one, by its file name, gathers
 * the annotations of all of them (yielded twice, the second would overwrite the first).
 */
function mergeImages(scans: ScannedFile[], index: EntryIndex): MergedImage[] {
  const out: MergedImage[] = [];
  const byKey = new Map<string, MergedImage>();
  scans.forEach((s, scan) => {
    const root = dirName(dirName(s.file));
    for (const img of s.images) {
      const entry = entryOf(index, s.file, img.fileName);
      const fileName = baseName(img.fileName);
      const key = entry ?? `\0${fileName.toLowerCase()}`;
      const seen = byKey.get(key);
      if (seen) {
        seen.parts.push({ scan, key: img.key });
        seen.width ??= img.width;
        seen.height ??= img.height;
        continue;
      }
      const merged: MergedImage = { fileName, ...(entry ? { entry } : {}), folder: entry ? folderOf(entry, root) : '', width: img.width, height: img.height, parts: [{ scan, key: img.key }] };
      byKey.set(key, merged);
      out.push(merged);
    }
  });
  return out;
}

async function* imagesOf(archive: ImportArchive, scans: ScannedFile[], merged: MergedImage[], skeletons: ReadonlyMap<string, SkeletonDefinition>, options: ReadOptions): AsyncGenerator<ImportedImage> {
  const handles: fsp.FileHandle[] = [];
  try {
    for (const s of scans) handles.push(await fsp.open(s.spillPath, 'r'));
    for (const img of merged) {
      options.signal?.throwIfAborted();
      const annotations: ImportedAnnotation[] = [];
      for (const { scan, key } of img.parts) {
        const s = scans[scan]!;
        for (const [i, a] of await readBack(handles[scan]!, s, key)) annotations.push(...convert(a, i, s, options.report, skeletons));
      }
      yield {
        fileName: img.fileName,
        ...(img.entry ? { entry: img.entry } : {}),
        folder: img.folder,
        ...(img.width ? { width: img.width } : {}),
        ...(img.height ? { height: img.height } : {}),
        annotations,
      };
    }
  } finally {
    for (const h of handles) await h.close();
    for (const s of scans) await fsp.rm(s.spillPath, { force: true });
  }
  const segmentations = scans.reduce((n, s) => n + s.segmentationsKept, 0);
  if (segmentations > 0) options.report.warn(`${segmentations} skeleton instance(s) kept their segmentation as polygon or mask annotations of the class "<name>${OUTLINE_SUFFIX}", beside the skeleton (extra.instance ties them)`);
  const used = new Set(merged.map((m) => m.entry).filter(Boolean));
  const rest = archive.paths.filter((p) => isImagePath(p) && !used.has(p));
  if (rest.length > 0) options.report.warn(`${rest.length} image file(s) in the archive are not listed in any COCO file; imported without annotations`);
  for (const entry of rest) yield { fileName: baseName(entry), entry, folder: folderOf(entry, ''), annotations: [] };
}

export const cocoReader: FormatReader = {
  format: 'coco',
  async detect(archive) {
    return (await cocoFiles(archive, 5)).length > 0;
  },
  async read(archive, options): Promise<DatasetRead> {
    const files = await cocoFiles(archive, MAX_PEEKED_FILES);
    if (files.length === 0) throw new ImportInputError('No COCO file found: expected a .json file with images, annotations and categories lists');
    const scans: ScannedFile[] = [];
    for (const [n, file] of files.entries()) {
      const s = await scanFile(archive, file, n, options);
      if (s) scans.push(s);
    }
    if (scans.length === 0) throw new ImportInputError(`No COCO instances file found (${files.join(', ')} lack images, annotations or categories)`);
    const merged = mergeImages(scans, new EntryIndex(archive));
    for (const s of scans) s.images = [];
    const skeletons = skeletonClasses(scans, options.report);
    return { classes: classesOf(scans, skeletons), total: merged.length, images: imagesOf(archive, scans, merged, skeletons, options) };
  },
};
