// Pascal VOC segmentation PNGs: `SegmentationObject/<id>.png` (each pixel the index of its object,
// 1 for the XML's first <object>, 0 background, 255 the void border) and `SegmentationClass/<id>.png`
// (each pixel its class index in the VOC class list, 0 background, 255 void), both drawn in the VOC
// palette (index i is colour voc_colormap(i); a paletted PNG or its RGB rendering read the same).
// They are masks, never images of their own.
//
// Decisions:
// - With SegmentationObject: one mask per object index found, of the class its pixels have in
//   SegmentationClass (the most frequent one), else of the XML's object of that number. With
//   SegmentationClass only: one mask per class found (semantic segmentation).
// - Class names: CVAT's `labelmap.txt` (`name:r,g,b:parts:actions`, its colours) when the
//   archive has one, else the VOC class list by index (VOC_CLASSES).
// - A mask whose class is the class of the XML's object of the same number shares extra
//   {instance} with that object's box (as VOC parts do), so the two stay one object (COCO's export
//   joins them into one annotation with its bbox and segmentation).
// - Masks are built run by run in COCO's column-major order, never as one bitmap per object; the
//   PNG is decoded once (sharp), at most MAX_SEGMENTATION_PIXELS. A PNG that cannot be read, of
//   another size than its partner, or too large is skipped with its reason.
import sharp, { type OutputInfo } from 'sharp';
import type { ImportArchive, ImportedAnnotation, ImportReporter } from '../reader';
import { baseName, dirName, extOf, joinPath, stemOf } from '../read-common';

/** The VOC class list: index i of SegmentationClass is VOC_CLASSES[i] (0 is the background). */
export const VOC_CLASSES = [
  'background', 'aeroplane', 'bicycle', 'bird', 'boat', 'bottle', 'bus', 'car', 'cat', 'chair', 'cow',
  'diningtable', 'dog', 'horse', 'motorbike', 'person', 'pottedplant', 'sheep', 'sofa', 'train', 'tvmonitor',
] as const;

/** Larger PNGs are skipped: the labels of one are held in memory (1 byte a pixel). */
export const MAX_SEGMENTATION_PIXELS = 40_000_000;
/** Bytes of one segmentation PNG read at most. */
const MAX_PNG_BYTES = 64 * 1024 * 1024;
const VOID = 255;

const SEGMENTATION_FOLDER = /^segmentation(class|object)$/i;

/** Whether an archive path is a VOC segmentation PNG (SegmentationClass/ or SegmentationObject/). */
export function isSegmentationPng(path: string): boolean {
  return extOf(path) === 'png' && SEGMENTATION_FOLDER.test(baseName(dirName(path)));
}

/** The VOC palette's colour of index i (the devkit's bit-interleaving rule), as r << 16 | g << 8 | b. */
export function vocColor(i: number): number {
  let r = 0, g = 0, b = 0;
  for (let j = 0, c = i; j < 8; j++, c >>= 3) {
    r |= ((c >> 0) & 1) << (7 - j);
    g |= ((c >> 1) & 1) << (7 - j);
    b |= ((c >> 2) & 1) << (7 - j);
  }
  return (r << 16) | (g << 8) | b;
}

const VOC_INDEX = new Map(Array.from({ length: 256 }, (_, i) => [vocColor(i), i]));

/** The segmentation PNGs of an archive, by VOC root, folder kind and image stem. */
export class SegmentationIndex {
  private readonly byKey = new Map<string, string>();
  private readonly used = new Set<string>();
  private classColors: Map<number, string> | null = null;

  constructor(private readonly archive: ImportArchive) {
    for (const p of archive.paths) {
      if (!isSegmentationPng(p)) continue;
      this.byKey.set(`${dirName(dirName(p))}\u0000${baseName(dirName(p)).toLowerCase()}\u0000${stemOf(p)}`, p);
    }
  }

  get size(): number {
    return this.byKey.size;
  }

  private find(root: string, kind: 'segmentationobject' | 'segmentationclass', stem: string): string | undefined {
    const p = this.byKey.get(`${root}\u0000${kind}\u0000${stem}`);
    if (p) this.used.add(p);
    return p;
  }

  /** The PNGs no XML file took, to report. */
  unused(): string[] {
    return [...this.byKey.values()].filter((p) => !this.used.has(p));
  }

  /** CVAT's labelmap.txt colours (r << 16 | g << 8 | b -> class name), or null without one. */
  private async labelColors(root: string): Promise<Map<number, string> | null> {
    if (this.classColors) return this.classColors.size ? this.classColors : null;
    this.classColors = new Map();
    const file = [joinPath(root, 'labelmap.txt'), 'labelmap.txt'].find((p) => this.archive.has(p));
    if (!file) return null;
    for (const line of (await this.archive.read(file, 1024 * 1024)).toString('utf8').split(/\r?\n/)) {
      if (!line.trim() || line.startsWith('#')) continue;
      const [name, rgb] = line.split(':');
      const c = (rgb ?? '').split(',').map((v) => Number(v));
      if (name && c.length === 3 && c.every((v) => Number.isInteger(v) && v >= 0 && v < 256)) this.classColors.set((c[0]! << 16) | (c[1]! << 8) | c[2]!, name.trim());
    }
    return this.classColors.size ? this.classColors : null;
  }

  /**
   * The masks of one image (its XML at `file`), with `objects` the names of the XML's <object>s in
   * order (for instances and names when SegmentationClass is missing).
   */
  async masks(file: string, objects: readonly string[], report: ImportReporter): Promise<ImportedAnnotation[]> {
    const root = dirName(dirName(file));
    const stem = stemOf(file);
    const objectPng = this.find(root, 'segmentationobject', stem);
    const classPng = this.find(root, 'segmentationclass', stem);
    if (!objectPng && !classPng) return [];
    const labels = await this.labelColors(root);
    const classNames = labels ? [...labels.values()] : [...VOC_CLASSES];
    const classOf = labels ? new Map([...labels.keys()].map((color, i) => [color, i])) : VOC_INDEX;
    const classes = classPng ? await decode(this.archive, classPng, classOf, report) : null;
    const objectsPx = objectPng ? await decode(this.archive, objectPng, VOC_INDEX, report) : null;
    if (objectPng && classes && objectsPx && (classes.width !== objectsPx.width || classes.height !== objectsPx.height)) {
      report.skip(objectPng, `its size ${objectsPx.width}x${objectsPx.height} is not the size of ${classPng} (${classes.width}x${classes.height})`);
      return [];
    }
    const instances = objectsPx ?? classes;
    if (!instances) return [];
    const out: ImportedAnnotation[] = [];
    for (const { index, counts, votes } of runsOf(instances, objectsPx && classes ? classes.labels : null)) {
      const name = objectsPx ? (votes !== null ? classNames[votes] : objects[index - 1]) : classNames[index];
      if (name === 'background') continue;
      if (!name) {
        if (objectsPx) report.skip(`${objectPng} object ${index}`, 'no class: neither SegmentationClass nor the XML names this object');
        else report.skip(`${classPng} class ${index}`, 'a class index the class list does not have');
        continue;
      }
      const instance = objectsPx && objects[index - 1] === name ? { extra: { instance: String(index) } } : {};
      out.push({ class: name, shape: { type: 'mask', size: [instances.height, instances.width], counts }, ...instance });
    }
    return out;
  }
}

interface Labels {
  width: number;
  height: number;
  /** Row-major, one index a pixel (0 background, 255 void). */
  labels: Uint8Array;
}

/** A segmentation PNG as indices of `colors` (a grey PNG's values are the indices), or null (reported) when it cannot be read. */
async function decode(archive: ImportArchive, path: string, colors: Map<number, number>, report: ImportReporter): Promise<Labels | null> {
  let raw: { data: Buffer; info: OutputInfo };
  try {
    const bytes = await archive.read(path, MAX_PNG_BYTES);
    raw = await sharp(bytes, { limitInputPixels: MAX_SEGMENTATION_PIXELS }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  } catch (err) {
    report.skip(path, `not a readable segmentation PNG of at most ${MAX_SEGMENTATION_PIXELS} pixels (${(err as Error).message})`);
    return null;
  }
  const { data, info } = raw;
  const n = info.width * info.height;
  const labels = new Uint8Array(n);
  let unknown = 0;
  for (let i = 0, o = 0; i < n; i++, o += info.channels) {
    const index = info.channels >= 3 ? colors.get((data[o]! << 16) | (data[o + 1]! << 8) | data[o + 2]!) : data[o]!;
    if (index === undefined) unknown += 1;
    labels[i] = index ?? 0;
  }
  if (unknown > 0) report.warn(`${path}: ${unknown} pixel(s) of a colour outside the palette are taken as background`);
  return { width: info.width, height: info.height, labels };
}

/**
 * Every index but the background (0) and the void (255), with its COCO RLE counts (column-major, from
 * a run of zeros) and, given `classes`, the class index most of its pixels have (null without).
 */
function runsOf(px: Labels, classes: Uint8Array | null): { index: number; counts: number[]; votes: number | null }[] {
  const { width, height, labels } = px;
  const counts = new Map<number, number[]>();
  const last = new Map<number, number>();
  const votes = classes ? new Uint32Array(256 * 256) : null;
  const toggle = (k: number, at: number) => {
    if (k === 0 || k === VOID) return;
    let list = counts.get(k);
    if (!list) counts.set(k, (list = []));
    list.push(at - (last.get(k) ?? 0));
    last.set(k, at);
  };
  let prev = 0;
  for (let x = 0, at = 0; x < width; x++) {
    for (let y = 0; y < height; y++, at++) {
      const i = y * width + x;
      const k = labels[i]!;
      if (votes && classes && k !== 0 && k !== VOID) votes[k * 256 + classes[i]!]! += 1;
      if (k !== prev) {
        toggle(prev, at);
        toggle(k, at);
        prev = k;
      }
    }
  }
  const total = width * height;
  return [...counts.keys()].sort((a, b) => a - b).map((k) => {
    const list = counts.get(k)!;
    list.push(total - last.get(k)!);
    let best: number | null = null;
    if (votes) {
      let most = 0;
      for (let c = 1; c < VOID; c++) if (votes[k * 256 + c]! > most) [best, most] = [c, votes[k * 256 + c]!];
    }
    return { index: k, counts: list, votes: best };
  });
}
