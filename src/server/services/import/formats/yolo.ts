// YOLO: Darknet (`obj.names`, `obj.data`, `obj_<split>_data/*.txt` next to the images, as CVAT's
// "YOLO 1.1" writes it) and Ultralytics (`data.yaml` with names as a list or an {index: name} map,
// `images/<split>/` beside `labels/<split>/`, or Roboflow's `<split>/images/` beside
// `<split>/labels/`).
//
// Label lines, coordinates normalised to 0..1 (ImportedImage.normalized: the importer multiplies
// by the image's real size):
//   `c cx cy w h`            a box (centre and size)
//   `c cx cy w h conf`       a box with a confidence (a model's predictions): attribute confidence
//   `c x1 y1 x2 y2 x3 y3 ..` a segment polygon (at least 3 points)
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
//   kept) so each class is 'polygon' when any of its lines is a polygon, else 'box'. Images are then
//   yielded one at a time, each label file read again when its image comes.
import { parse as parseYaml, YAMLParseError } from 'yaml';
import {
  ImportInputError,
  type DatasetRead,
  type FormatReader,
  type ImportArchive,
  type ImportedAnnotation,
  type ImportedImage,
  type Point,
  type ReadOptions,
} from '../types';
import { EntryIndex, baseName, dirName, extOf, isImagePath, joinPath, readText, stemOf } from './common';

const YAML_NAME = /^data\.ya?ml$/i;
const LIST_NAME = /^(train|valid|val|test)\.txt$/i;
const DARKNET_SPLIT = /^obj_(.+)_data$/i;

interface Layout {
  names: string[];
  /** Folder of data.yaml / obj.names: paths below it are the dataset's. */
  root: string;
  /** Text files that list image paths (Darknet train.txt ...). */
  lists: string[];
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

/** Values of `key = value` lines (obj.data) or YAML keys that name list files. */
function listRefs(values: unknown[]): string[] {
  return values.filter((v): v is string => typeof v === 'string' && extOf(v) === 'txt').map((v) => baseName(v.replace(/\\/g, '/')));
}

async function layoutOf(archive: ImportArchive): Promise<Layout> {
  const yamlFile = shallowest(archive.paths.filter((p) => YAML_NAME.test(baseName(p))));
  const refs: string[] = [];
  let names: string[];
  let root: string;
  if (yamlFile) {
    let doc: unknown;
    try {
      doc = parseYaml(await readText(archive, yamlFile));
    } catch (err) {
      if (err instanceof YAMLParseError) throw new ImportInputError(`${yamlFile}: YAML error at line ${err.linePos?.[0].line ?? '?'}: ${err.message.split('\n')[0]}`);
      throw err;
    }
    names = yamlNames(doc, yamlFile);
    root = dirName(yamlFile);
    const d = doc as Record<string, unknown>;
    refs.push(...listRefs([d.train, d.val, d.valid, d.test].flat()));
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
  return { names, root, lists };
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

type Parsed = { ok: true; value: ImportedAnnotation } | { ok: false; reason: string } | null;

/** One label line; null for a blank line or a comment. */
export function parseLabelLine(line: string, names: readonly string[]): Parsed {
  const text = line.trim();
  if (text === '' || text.startsWith('#')) return null;
  const tokens = text.split(/\s+/);
  const nums = tokens.map(Number);
  const bad = tokens.findIndex((_t, i) => !Number.isFinite(nums[i]!));
  if (bad >= 0) return { ok: false, reason: `not a number: "${tokens[bad]!.slice(0, 40)}"` };
  const c = nums[0]!;
  if (!Number.isInteger(c) || c < 0 || c >= names.length) return { ok: false, reason: `class index ${tokens[0]} is not one of the ${names.length} classes (0 to ${names.length - 1})` };
  const cls = names[c]!;
  if (nums.length === 5 || nums.length === 6) {
    const [cx, cy, w, h] = nums.slice(1, 5) as [number, number, number, number];
    if (w < 0 || h < 0) return { ok: false, reason: 'a box cannot have a negative width or height' };
    const value: ImportedAnnotation = { class: cls, shape: { type: 'box', x: cx - w / 2, y: cy - h / 2, w, h } };
    if (nums.length === 6) value.attributes = [{ name: 'confidence', value: nums[5]! }];
    return { ok: true, value };
  }
  if (nums.length >= 7 && nums.length % 2 === 1) {
    const path: Point[] = [];
    for (let i = 1; i < nums.length; i += 2) path.push([nums[i]!, nums[i + 1]!]);
    return { ok: true, value: { class: cls, shape: { type: 'polygon', path } } };
  }
  return { ok: false, reason: `${nums.length} values: expected 5 (class cx cy w h), 6 (with a confidence) or an odd number of at least 7 (class and 3 or more x y points)` };
}

async function readLabels(archive: ImportArchive, file: string, names: readonly string[], options: ReadOptions): Promise<ImportedAnnotation[]> {
  const out: ImportedAnnotation[] = [];
  (await readText(archive, file)).split(/\r?\n/).forEach((line, i) => {
    const parsed = parseLabelLine(line, names);
    if (!parsed) return;
    if (parsed.ok) out.push(parsed.value);
    else options.report.skip(`${file} line ${i + 1}`, parsed.reason);
  });
  return out;
}

/** Class types from a first read of every label file: polygon when any line of the class is one. */
async function classTypes(archive: ImportArchive, labels: string[], names: readonly string[]): Promise<('box' | 'polygon' | undefined)[]> {
  const types: ('box' | 'polygon' | undefined)[] = names.map(() => undefined);
  for (const file of labels) {
    for (const line of (await readText(archive, file)).split(/\r?\n/)) {
      const parsed = parseLabelLine(line, names);
      if (!parsed?.ok) continue;
      const c = names.indexOf(parsed.value.class);
      if (parsed.value.shape.type === 'polygon') types[c] = 'polygon';
      else types[c] ??= 'box';
    }
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
    const annotations = label ? await readLabels(archive, label, layout.names, options) : [];
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
    yield { fileName, folder: folderOf(label, layout, splits), normalized: true, annotations: await readLabels(archive, label, layout.names, options) };
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
    const types = await classTypes(archive, labels, layout.names);
    const classes = layout.names.map((name, i) => (types[i] ? { name, type: types[i] } : { name }));
    const total = archive.paths.filter(isImagePath).length;
    return { classes, total, images: imagesOf(archive, layout, labels, options) };
  },
};
