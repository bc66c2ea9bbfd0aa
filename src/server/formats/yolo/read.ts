// YOLO: Darknet (`obj.names`, `obj.data`, `obj_<split>_data/*.txt` next to the images, as CVAT's
// "YOLO 1.1" writes it) and Ultralytics (`data.yaml` with names as a list or an {index: name} map,
// `images/<split>/` beside `labels/<split>/`, or Roboflow's `<split>/images/` beside
// `<split>/labels/`).
//
// Label lines, coordinates normalised to 0..1 (ImportedImage.normalized: the importer multiplies
// by the image's real size):
//   `c cx cy w h`            a box (centre and size)
//   `c cx cy w h conf`       a box with a confidence (a model's predictions): attribute confidence
//   `c x1 y1 x2 y2 x3 y3 ..` a segment polygon (at least 3 points; OBB's 4 corners are one too),
//   except 4 corners of an axis-aligned rectangle, which are a box. A ring with zero-width
//   bridges (an edge walked there and back: Vellum's export of holes and of a mask's parts,
//   Ultralytics' merge_multi_segment) is cut at them (../rings.ts splitBridged): a polygon with
//   its holes, or several polygons joined by extra {instance: 'line <n>'}
//   `c cx cy w h x1 y1 v1 ..` in pose datasets (data.yaml kpt_shape [k, 2|3]): one skeleton instance
//                            (issue 33), its box and its k points (v 0 not labelled); its class a
//                            skeleton class of k points named by kpt_names (else 1..k), no edges.
//                            A line without a labelled point is a plain box
// Anything else (another count, a non-number, a class index outside the names, a negative size)
// is skipped with `<label file> line <n>: <reason>`; blank lines and `#` comments are ignored.
//
// Decisions:
// - The label of an image is found as Ultralytics does (the last `images` folder of its path
//   replaced by `labels`, extension .txt), else next to the image (Darknet).
// - Images without a label file are yielded without annotations. A label file without an image
//   is yielded (annotation-only, matched by file name) when a list file (train.txt, valid.txt,
//   test.txt, or one named in obj.data / data.yaml) names its image; otherwise its image's
//   extension is unknown, and it is skipped with that reason.
// - folder: the image's folder without the `images` segment ('train' for images/train/x.jpg and
//   for train/images/x.jpg); Darknet's obj_<split>_data becomes <split> when there are several
//   splits, nothing when there is one.
// - Class types: every label file is read once in read() (only class indexes and value counts are
//   kept) so each class is 'keypoint' in a pose dataset, else 'polygon' when any of its lines is a
//   polygon, else 'box'. Images are then yielded one at a time, each label file read again when
//   its image comes.
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { MAX_IMPORT_YAML_ALIASES, MAX_SHAPES_PER_IMAGE } from '../../../contract/imports';
import {
  ImportInputError,
  type DatasetRead,
  type FormatReader,
  type ImportArchive,
  type ImportedAnnotation,
  type ImportedImage,
  type Point,
  type ReadOptions,
} from '../reader';
import { EntryIndex, baseName, dirName, extOf, isImagePath, joinPath, readText, stemOf, uniquePointNames } from '../read-common';
import { axisAlignedRectangle } from '../shapes';
import { splitBridged } from '../rings';

const YAML_NAME = /^data\.ya?ml$/i;
const LIST_NAME = /^(train|valid|val|test)\.txt$/i;
const DARKNET_SPLIT = /^obj_(.+)_data$/i;

interface Layout {
  names: string[];
  /** Folder of data.yaml / obj.names: paths below it are the dataset's. */
  root: string;
  /** Text files that list image paths (Darknet train.txt ...). */
  lists: string[];
  /** Ultralytics pose: every line is a box and its keypoints. */
  pose?: PoseShape;
}

function shallowest(paths: string[]): string | undefined {
  return [...paths].sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b))[0];
}

function yamlNames(doc: unknown, file: string): string[] {
  const names = (doc as { names?: unknown } | null)?.names;
  if (Array.isArray(names)) return names.map((n) => String(n));
  if (names && typeof names === 'object') {
    const out: string[] = [];
    for (const [k, v] of Object.entries(names)) {
      const i = Number(k);
      if (!Number.isInteger(i) || i < 0 || i > 100_000) throw new ImportInputError(`${file}: names has a key "${k}" that is not a class index`);
      out[i] = String(v);
    }
    return Array.from(out, (n, i) => n ?? String(i));
  }
  throw new ImportInputError(`${file}: no names (a list of class names, or a map from class index to name)`);
}

/** kpt_shape [points, 2 | 3] (and kpt_names) of an Ultralytics pose dataset; undefined for others. */
function poseOf(d: Record<string, unknown>, file: string): PoseShape | undefined {
  if (d.kpt_shape === undefined) return undefined;
  const shape = d.kpt_shape;
  if (!Array.isArray(shape) || shape.length !== 2 || !Number.isInteger(shape[0]) || shape[0] < 1 || (shape[1] !== 2 && shape[1] !== 3)) {
    throw new ImportInputError(`${file}: kpt_shape must be [number of keypoints, 2 or 3]`);
  }
  const names = d.kpt_names;
  const list = (v: unknown) => (Array.isArray(v) ? v.map((n) => String(n)) : undefined);
  let kptNames: PoseShape['names'];
  if (Array.isArray(names)) kptNames = list(names);
  else if (names && typeof names === 'object') kptNames = Object.fromEntries(Object.entries(names).map(([k, v]) => [Number(k), list(v) ?? []]));
  return { points: shape[0] as number, dims: shape[1] as 2 | 3, ...(kptNames ? { names: kptNames } : {}) };
}

/** Values of `key = value` lines (obj.data) or YAML keys that name list files. */
function listRefs(values: unknown[]): string[] {
  return values.filter((v): v is string => typeof v === 'string' && extOf(v) === 'txt').map((v) => baseName(v.replace(/\\/g, '/')));
}

async function layoutOf(archive: ImportArchive): Promise<Layout> {
  const yamlFile = shallowest(archive.paths.filter((p) => YAML_NAME.test(baseName(p))));
  const refs: string[] = [];
  let names: string[];
  let pose: PoseShape | undefined;
  let root: string;
  if (yamlFile) {
    let doc: unknown;
    const text = await readText(archive, yamlFile);
    try {
      doc = parseYaml(text, { maxAliasCount: MAX_IMPORT_YAML_ALIASES });
    } catch (err) {
      if (err instanceof YAMLParseError) throw new ImportInputError(`${yamlFile}: YAML error at line ${err.linePos?.[0].line ?? '?'}: ${err.message.split('\n')[0]}`);
      // yaml throws a ReferenceError for an alias bomb, and deep nesting overflows the stack: the file's fault either way.
      if (err instanceof ReferenceError) throw new ImportInputError(`${yamlFile}: YAML aliases expand too far; at most ${MAX_IMPORT_YAML_ALIASES} are followed`);
      if (err instanceof RangeError) throw new ImportInputError(`${yamlFile}: YAML nested too deeply to be read`);
      throw new ImportInputError(`${yamlFile}: YAML cannot be read (${(err as Error).message.slice(0, 200)})`);
    }
    names = yamlNames(doc, yamlFile);
    root = dirName(yamlFile);
    const d = doc as Record<string, unknown>;
    refs.push(...listRefs([d.train, d.val, d.valid, d.test].flat()));
    pose = poseOf(d, yamlFile);
  } else {
    const namesFile = shallowest(archive.paths.filter((p) => baseName(p).toLowerCase() === 'obj.names')) ?? shallowest(archive.paths.filter((p) => extOf(p) === 'names'));
    if (!namesFile) throw new ImportInputError('No YOLO class names: expected data.yaml (Ultralytics) or obj.names (Darknet)');
    const lines = (await readText(archive, namesFile)).split(/\r?\n/).map((l) => l.trim());
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    names = lines.map((l, i) => l || String(i));
    root = dirName(namesFile);
    const dataFile = archive.paths.find((p) => baseName(p).toLowerCase() === 'obj.data');
    if (dataFile) refs.push(...listRefs((await readText(archive, dataFile)).split(/\r?\n/).map((l) => l.split('=')[1]?.trim())));
  }
  if (names.length === 0) throw new ImportInputError('The YOLO class names list is empty');
  const lists = archive.paths.filter((p) => extOf(p) === 'txt' && (LIST_NAME.test(baseName(p)) || refs.includes(baseName(p))) && !p.split('/').includes('labels'));
  return { names, root, lists, ...(pose ? { pose } : {}) };
}

/** The label file's path for an image: Ultralytics' images -> labels, else beside it. */
function labelCandidates(image: string): string[] {
  const parts = image.split('/');
  const stemmed = `${stemOf(image)}.txt`;
  const i = parts.lastIndexOf('images');
  const beside = joinPath(dirName(image), stemmed);
  if (i < 0 || i === parts.length - 1) return [beside];
  return [joinPath(...parts.slice(0, i), 'labels', ...parts.slice(i + 1, -1), stemmed), beside];
}

/** Where an image (or its label file) goes: its folder below the root, without the images / labels / obj_<split>_data segment. */
function folderOf(p: string, layout: Layout, splits: number): string {
  const rel = layout.root && p.startsWith(`${layout.root}/`) ? p.slice(layout.root.length + 1) : p;
  const parts = dirName(rel).split('/').filter(Boolean);
  const i = Math.max(parts.lastIndexOf('images'), parts.lastIndexOf('labels'));
  if (i >= 0) parts.splice(i, 1);
  const d = parts.findIndex((s) => DARKNET_SPLIT.test(s));
  if (d >= 0) parts.splice(d, 1, ...(splits > 1 ? [DARKNET_SPLIT.exec(parts[d]!)![1]!] : []));
  return parts.join('/');
}

/** Label files: .txt below a labels or obj_<split>_data folder, or beside an image of the same stem. */
function labelFiles(archive: ImportArchive, layout: Layout): string[] {
  const imageStems = new Set(archive.paths.filter(isImagePath).map((p) => joinPath(dirName(p), stemOf(p)).toLowerCase()));
  return archive.paths.filter((p) => {
    if (extOf(p) !== 'txt' || layout.lists.includes(p)) return false;
    const dirs = dirName(p).split('/');
    return dirs.includes('labels') || dirs.some((d) => DARKNET_SPLIT.test(d)) || imageStems.has(joinPath(dirName(p), stemOf(p)).toLowerCase());
  });
}

/** Ultralytics pose datasets: data.yaml's kpt_shape [points, 2 | 3] and optional kpt_names (a list, or per class index). */
export interface PoseShape {
  points: number;
  dims: 2 | 3;
  names?: Record<number, string[]> | string[];
}

type Parsed = { ok: true; value: ImportedAnnotation[] } | { ok: false; reason: string } | null;

function box(nums: number[], cls: string): ImportedAnnotation | string {
  const [cx, cy, w, h] = nums.slice(1, 5) as [number, number, number, number];
  if (w < 0 || h < 0) return 'a box cannot have a negative width or height';
  return { class: cls, shape: { type: 'box', x: cx - w / 2, y: cy - h / 2, w, h } };
}

/** A pose line: one skeleton instance, its box and its points (kpt_shape's dims 2: every point visible); a line without a labelled point is a plain box. */
function poseLine(nums: number[], cls: string, pose: PoseShape): Parsed {
  const expected = 5 + pose.points * pose.dims;
  if (nums.length !== expected) return { ok: false, reason: `${nums.length} values: expected ${expected} (class cx cy w h and ${pose.points} keypoints of ${pose.dims} values, kpt_shape in data.yaml)` };
  const b = box(nums, cls);
  if (typeof b === 'string') return { ok: false, reason: b };
  const points = Array.from({ length: pose.points }, (_, i) => {
    const at = 5 + i * pose.dims;
    const v = pose.dims === 3 ? nums[at + 2]! : 2;
    return v > 0 ? { x: nums[at]!, y: nums[at + 1]!, v: v === 1 ? 1 : 2 } : { x: 0, y: 0, v: 0 };
  });
  if (b.shape.type !== 'box' || points.every((p) => p.v === 0)) return { ok: true, value: [b] };
  const { type: _t, ...rect } = b.shape;
  return { ok: true, value: [{ class: cls, shape: { type: 'skeleton', points, box: rect } }] };
}

/** A pose class's point names: kpt_names (a list for every class, or per class index), else their 1-based numbers; unique, none empty. */
export function posePointNames(pose: PoseShape, c: number): string[] {
  const given = (Array.isArray(pose.names) ? pose.names : pose.names?.[c]) ?? [];
  return uniquePointNames(Array.from({ length: pose.points }, (_, i) => given[i] ?? String(i + 1)));
}

/** One label line; null for a blank line or a comment. `instance` joins a pose line's box and keypoints. */
export function parseLabelLine(line: string, names: readonly string[], pose?: PoseShape, instance = ''): Parsed {
  const text = line.trim();
  if (text === '' || text.startsWith('#')) return null;
  const tokens = text.split(/\s+/);
  const nums = tokens.map(Number);
  const bad = tokens.findIndex((_t, i) => !Number.isFinite(nums[i]!));
  if (bad >= 0) return { ok: false, reason: `not a number: "${tokens[bad]!.slice(0, 40)}"` };
  const c = nums[0]!;
  if (!Number.isInteger(c) || c < 0 || c >= names.length) return { ok: false, reason: `class index ${tokens[0]} is not one of the ${names.length} classes (0 to ${names.length - 1})` };
  const cls = names[c]!;
  if (pose) return poseLine(nums, cls, pose);
  if (nums.length === 5 || nums.length === 6) {
    const value = box(nums, cls);
    if (typeof value === 'string') return { ok: false, reason: value };
    if (nums.length === 6) value.attributes = [{ name: 'confidence', value: nums[5]! }];
    return { ok: true, value: [value] };
  }
  if (nums.length >= 7 && nums.length % 2 === 1) {
    const path: Point[] = [];
    for (let i = 1; i < nums.length; i += 2) path.push([nums[i]!, nums[i + 1]!]);
    const rect = axisAlignedRectangle(path);
    if (rect) return { ok: true, value: [{ class: cls, shape: { type: 'box', ...rect } }] };
    // A line whose holes or parts are joined by zero-width bridges (Vellum's and Ultralytics' own) is cut back into them.
    const polygons = splitBridged(path);
    return {
      ok: true,
      value: polygons.map((p) => ({ class: cls, shape: { type: 'polygon', path: p.path, ...(p.holes.length ? { holes: p.holes } : {}) }, ...(polygons.length > 1 ? { extra: { instance } } : {}) })),
    };
  }
  return { ok: false, reason: `${nums.length} values: expected 5 (class cx cy w h), 6 (with a confidence) or an odd number of at least 7 (class and 3 or more x y points)` };
}

/** A label file parsed: its annotations, the lines skipped (line number from 1, and why), and the lines past the per-image cap. */
export interface LabelFile {
  annotations: ImportedAnnotation[];
  skipped: [line: number, reason: string][];
  leftOut: number;
}

/** Parses one label file's text (pure: the importer's real run calls it on an offload thread, see LabelParsing). */
export function parseLabelFile(text: string, names: readonly string[], pose?: PoseShape): LabelFile {
  const out: LabelFile = { annotations: [], skipped: [], leftOut: 0 };
  text.split(/\r?\n/).forEach((line, i) => {
    // Lines past the per-image cap are counted, not parsed (the importer would leave them out anyway).
    if (out.annotations.length >= MAX_SHAPES_PER_IMAGE) {
      const trimmed = line.trim();
      if (trimmed !== '' && !trimmed.startsWith('#')) out.leftOut += 1;
      return;
    }
    const parsed = parseLabelLine(line, names, pose, `line ${i + 1}`);
    if (!parsed) return;
    if (parsed.ok) out.annotations.push(...parsed.value);
    else out.skipped.push([i + 1, parsed.reason]);
  });
  return out;
}

type ClassType = 'box' | 'polygon' | 'keypoint' | undefined;

/** Each class name's first index, as names.indexOf gives it (a names list may repeat a name). */
function firstIndexes(names: readonly string[]): Map<string, number> {
  const index = new Map<string, number>();
  names.forEach((n, i) => index.has(n) || index.set(n, i));
  return index;
}

/** The class types one label file shows, by class index (see classTypes; pure, like parseLabelFile). */
export function labelClassTypes(text: string, names: readonly string[], pose?: PoseShape): ClassType[] {
  const types: ClassType[] = names.map(() => undefined);
  const index = firstIndexes(names);
  for (const line of text.split(/\r?\n/)) {
    const parsed = parseLabelLine(line, names, pose);
    if (!parsed?.ok) continue;
    const c = index.get(parsed.value[0]!.class)!;
    if (pose && parsed.value[0]!.shape.type === 'skeleton') types[c] = 'keypoint';
    else if (parsed.value[0]!.shape.type === 'polygon') types[c] = 'polygon';
    else types[c] ??= 'box';
  }
  return types;
}

/**
 * Label files parsed somewhere other than in-line: the importer's real run passes one that parses
 * on an offload thread (src/server/offload, tasks yoloLabels and yoloClassTypes), so 10,000 lines
 * a file never hold the event loop. ReadOptions.yoloLabels; absent, the reader parses in-line (the
 * dry run already reads on a thread).
 */
export interface LabelParsing {
  parse(text: string, names: readonly string[], pose: PoseShape | undefined): Promise<LabelFile>;
  classTypes(text: string, names: readonly string[], pose: PoseShape | undefined): Promise<ClassType[]>;
}

/**
 * A LabelFile for posting between threads. Cloning 10,000 small objects costs the receiving thread
 * more than parsing the lines (about 45 ms against 25 ms), so plain boxes, most lines, travel as
 * typed arrays (moved, not copied) and only the other shapes as objects.
 */
export interface PackedLabels {
  /** Per annotation, in order: the class index of a plain box, or -1 for the next of `others`. */
  classes: Int32Array;
  /** x, y, w, h of each plain box, in order. */
  boxes: Float64Array;
  others: ImportedAnnotation[];
  skipped: [number, string][];
  leftOut: number;
}

export function packLabels(file: LabelFile, names: readonly string[]): PackedLabels {
  const index = firstIndexes(names);
  const classes = new Int32Array(file.annotations.length);
  const boxes: number[] = [];
  const others: ImportedAnnotation[] = [];
  file.annotations.forEach((a, i) => {
    const c = index.get(a.class);
    if (a.shape.type === 'box' && c !== undefined && Object.keys(a).length === 2) {
      classes[i] = c;
      boxes.push(a.shape.x, a.shape.y, a.shape.w, a.shape.h);
    } else {
      classes[i] = -1;
      others.push(a);
    }
  });
  return { classes, boxes: Float64Array.from(boxes), others, skipped: file.skipped, leftOut: file.leftOut };
}

export function unpackLabels(p: PackedLabels, names: readonly string[]): LabelFile {
  const annotations: ImportedAnnotation[] = new Array(p.classes.length);
  let box = 0;
  let other = 0;
  for (let i = 0; i < p.classes.length; i++) {
    const c = p.classes[i]!;
    if (c < 0) {
      annotations[i] = p.others[other++]!;
      continue;
    }
    const b = p.boxes;
    annotations[i] = { class: names[c]!, shape: { type: 'box', x: b[box]!, y: b[box + 1]!, w: b[box + 2]!, h: b[box + 3]! } };
    box += 4;
  }
  return { annotations, skipped: p.skipped, leftOut: p.leftOut };
}

async function readLabels(archive: ImportArchive, file: string, layout: Layout, options: ReadOptions): Promise<ImportedAnnotation[]> {
  const text = await readText(archive, file);
  const parsed = options.yoloLabels ? await options.yoloLabels.parse(text, layout.names, layout.pose) : parseLabelFile(text, layout.names, layout.pose);
  for (const [line, reason] of parsed.skipped) options.report.skip(`${file} line ${line}`, reason);
  const leftOut = parsed.leftOut;
  if (leftOut > 0) options.report.skip(file, `${leftOut} more line${leftOut === 1 ? '' : 's'} left out: at most ${MAX_SHAPES_PER_IMAGE.toLocaleString('en-US')} shapes are kept per image`);
  return parsed.annotations;
}

/** Class types from a first read of every label file: keypoint for pose datasets, else polygon when any line of the class is one, else box. */
async function classTypes(archive: ImportArchive, labels: string[], layout: Layout, options: ReadOptions): Promise<ClassType[]> {
  const types: ClassType[] = layout.names.map(() => undefined);
  for (const file of labels) {
    const text = await readText(archive, file);
    const found = options.yoloLabels ? await options.yoloLabels.classTypes(text, layout.names, layout.pose) : labelClassTypes(text, layout.names, layout.pose);
    found.forEach((t, c) => {
      if (t === 'keypoint' || t === 'polygon') types[c] = t;
      else if (t === 'box') types[c] ??= 'box';
    });
  }
  return types;
}

/** Image paths named by the list files, by their stem (lower case) -> file name. */
async function listedNames(archive: ImportArchive, lists: string[]): Promise<Map<string, string>> {
  const byStem = new Map<string, string>();
  for (const file of lists) {
    for (const line of (await readText(archive, file)).split(/\r?\n/)) {
      const p = line.trim().replace(/\\/g, '/');
      if (p && isImagePath(p)) byStem.set(joinPath(dirName(p).split('/').pop() ?? '', stemOf(p)).toLowerCase(), baseName(p));
    }
  }
  return byStem;
}

async function* imagesOf(archive: ImportArchive, layout: Layout, labels: string[], options: ReadOptions): AsyncGenerator<ImportedImage> {
  const index = new EntryIndex(archive);
  const splits = new Set(archive.paths.flatMap((p) => p.split('/').filter((s) => DARKNET_SPLIT.test(s)))).size;
  const used = new Set<string>();
  for (const entry of archive.paths) {
    if (!isImagePath(entry)) continue;
    options.signal?.throwIfAborted();
    const label = index.first(labelCandidates(entry));
    if (label) used.add(label);
    const annotations = label ? await readLabels(archive, label, layout, options) : [];
    yield { fileName: baseName(entry), entry, folder: folderOf(entry, layout, splits), normalized: true, annotations };
  }
  const orphans = labels.filter((l) => !used.has(l));
  const listed = orphans.length > 0 ? await listedNames(archive, layout.lists) : new Map<string, string>();
  for (const label of orphans) {
    const fileName = listed.get(joinPath(dirName(label).split('/').pop() ?? '', stemOf(label)).toLowerCase());
    if (!fileName) {
      options.report.skip(label, 'no image for this label file in the archive, and no list file (train.txt ...) names it, so its file name is unknown');
      continue;
    }
    yield { fileName, folder: folderOf(label, layout, splits), normalized: true, annotations: await readLabels(archive, label, layout, options) };
  }
}

export const yoloReader: FormatReader = {
  format: 'yolo',
  async detect(archive) {
    return archive.paths.some((p) => YAML_NAME.test(baseName(p)) || baseName(p).toLowerCase() === 'obj.names');
  },
  async read(archive, options): Promise<DatasetRead> {
    const layout = await layoutOf(archive);
    const labels = labelFiles(archive, layout);
    const types = await classTypes(archive, labels, layout, options);
    // In a pose dataset a class with labelled keypoints is a skeleton class of kpt_shape's points (YOLO has no edges).
    const pose = layout.pose;
    const classes = layout.names.map((name, i) => (pose && types[i] === 'keypoint' ? { name, skeleton: { points: posePointNames(pose, i), edges: [] } } : types[i] ? { name, type: types[i] } : { name }));
    const total = archive.paths.filter(isImagePath).length;
    return { classes, total, images: imagesOf(archive, layout, labels, options) };
  },
};
