// What the export's run loop (../services/export/index.ts) and the format writers
// (./<format>/write.ts) share: the run's state, the report README.txt is written from, the file
// naming of the layouts that cannot keep every image's own name (YOLO and VOC), and readers of a
// stored annotation's box, mask and attributes.
import { and, eq, gt, inArray, sql, type SQL } from 'drizzle-orm';
import type { AppContext } from '../context';
import { annotations, images } from '../db/schema';
import type { ExportFormat, ExportScope, MaskFormat, SplitName, YoloTask } from '../../contract/export';
import type { Kernels } from '../../kernels/node';
import { classAllowsTool } from '../../contract/projects';
import type { ImageRow, ProjectRow } from '../services/images';
import type { ZipSink } from '../services/export/sink';
import type { TimeSlice } from '../offload/slice';
import type { SplitPlan } from '../services/export/split';
import { isNum, type PixelBox } from './shapes';
import { stemOf } from './read-common';

export interface RunState {
  ctx: AppContext;
  /** The export's private temporary directory (central directory, spools), removed when the zip ends. */
  tmp: string;
  project: ProjectRow;
  format: ExportFormat;
  scope: ExportScope;
  /** The scope in words for README.txt ('every image not archived, in every folder'). */
  scopeText: string;
  includeImages: boolean;
  /** Pending model predictions (issue 34): exported only when asked; `leftOut` counts those left out, for README.txt. */
  predictions: { include: boolean; leftOut: number };
  classFilter: Set<string> | null;
  name: string;
  /** The images of the export (a condition on `images`). */
  where: SQL;
  kernels: Kernels | null;
  sink: ZipSink;
  report: Report;
  /** The export's time slice: loops over images and annotations pause on it, so requests never wait behind a large export (issue 30). */
  slice: TimeSlice;
  /** The train/val/test split (request `split`), or null: one set. */
  split: SplitPlan | null;
  /** YOLO's labels as asked; undefined: the default (../yolo/write.ts). */
  yoloTask: YoloTask | undefined;
  /** COCO's masks: RLE or polygons. */
  maskFormat: MaskFormat;
}

/** The kernels' simplification tolerance for masks written as polygons (YOLO segments, COCO with mask_format 'polygon'): one constant for every format and the editor. */
export { MASK_POLYGON_TOLERANCE } from '../../kernels/node';

/** The image's split, or null when the export has none. */
export function splitOf(s: Pick<RunState, 'split'>, image: Pick<ImageRow, 'id'>): SplitName | null {
  return s.split ? s.split.of(image.id) : null;
}

/** One format's output: an entry (or more) per image, then what spans the whole export. */
export interface FormatWriter {
  /** Where the image's own file goes in the zip (with include_images). */
  imagePath(image: ImageRow, rel: string): string;
  /** Writes the image's annotations (those of the filtered classes, in paint order). */
  image(image: ImageRow, rel: string, annotations: Record<string, unknown>[], version: number): Promise<void>;
  /** After the last image: manifests, class lists, spooled lists. */
  finish(): Promise<void>;
  /** README.txt lines on the layout and the conversions (the run adds the counts and the lists). */
  readme(): string[];
}

/** README lists stop after this many lines each ('... and N more'): memory stays bounded. */
export const README_LIST_MAX = 10_000;

/** Something counted for README.txt, with the first README_LIST_MAX lines that name it. */
export class Tally {
  count = 0;
  lineCount = 0;
  readonly lines: string[] = [];
  add(line: string, n = 1): void {
    this.count += n;
    this.lineCount += 1;
    if (this.lines.length < README_LIST_MAX) this.lines.push(line);
  }
  list(out: string[]): void {
    out.push(...this.lines);
    if (this.lineCount > this.lines.length) out.push(`... and ${this.lineCount - this.lines.length} more`);
  }
}

export interface Report {
  images: number;
  annotations: number;
  /** Annotations a format cannot hold, by kind ('polyline', 'keypoint'): lines `image\tclass\tcount`. */
  leftOut: Map<string, Tally>;
  /** Lines `image\tclass\tannotation id\treason`. */
  invalid: Tally;
  missing: Tally;
}

export function newReport(): Report {
  return { images: 0, annotations: 0, leftOut: new Map(), invalid: new Tally(), missing: new Tally() };
}

/** One image's left-out annotations, by kind then class, written to the report as one line per class. */
export class LeftOut {
  private readonly byKind = new Map<string, Map<string, number>>();
  add(kind: string, className: string): void {
    let m = this.byKind.get(kind);
    if (!m) this.byKind.set(kind, (m = new Map()));
    m.set(className, (m.get(className) ?? 0) + 1);
  }
  flush(report: Report, imagePath: string): void {
    for (const [kind, classes] of this.byKind) {
      let t = report.leftOut.get(kind);
      if (!t) report.leftOut.set(kind, (t = new Tally()));
      for (const [cls, n] of classes) t.add(`${imagePath}\t${cls}\t${n}`, n);
    }
    this.byKind.clear();
  }
}

/** README lines for one left-out kind: `${title}: ${why}, so N ${kind} annotation(s) were left out:` and the list. */
export function leftOutSection(report: Report, kind: string, title: string, why: string): string[] {
  const t = report.leftOut.get(kind);
  if (!t || t.count === 0) return [`${title}: none left out.`];
  const lines = [`${title}: ${why}, so ${t.count} ${kind} annotation(s) were left out:`, 'image\tclass\tcount'];
  t.list(lines);
  return lines;
}

// --- names in layouts keyed by the file name's stem (YOLO labels/, VOC Annotations/)

/** The file name without its last extension ('a.b.png' -> 'a.b'; a leading dot is not an extension): read-common's stemOf, the same rule as STEM_SQL. */
export { stemOf };
const STEM_SQL = sql`lower(regexp_replace(${images.filename}, '(.)\\.[^.]*$', '\\1'))`;

/** A stem ending like the suffix the renaming adds: renamed too, so renamed names never meet kept ones. */
const ID_SUFFIX = /-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Ids of the exported images whose stem (compared case-insensitively, as Windows and macOS
 * compare file names) another exported image shares: within the same folder (`perFolder`, YOLO
 * keeps folders) or anywhere (VOC is flat). Only those are renamed, so the set is usually empty.
 */
export async function sharedStems(s: Pick<RunState, 'ctx' | 'where'>, perFolder: boolean): Promise<Set<string>> {
  const partition = perFolder ? sql`lower(${images.virtualFolderPath}), ${STEM_SQL}` : STEM_SQL;
  const counted = s.ctx.db
    .select({ id: images.id, n: sql<number>`count(*) over (partition by ${partition})`.mapWith(Number).as('n') })
    .from(images)
    .where(s.where)
    .as('counted');
  const rows = await s.ctx.db.select({ id: counted.id }).from(counted).where(gt(counted.n, 1));
  return new Set(rows.map((r) => r.id));
}

/**
 * The stem and file name an image takes in a stem-keyed layout. Its own, unless another exported
 * image shares the stem (see sharedStems) or the stem already ends like a suffix: then
 * `<stem>-<image id>` + extension. Collision-free: kept stems are unique (case-insensitively) and
 * never end in an id; renamed ones end in their image's own id.
 */
export function exportName(image: Pick<ImageRow, 'id' | 'filename'>, renamed: ReadonlySet<string>): { stem: string; fileName: string } {
  const stem = stemOf(image.filename);
  const ext = image.filename.slice(stem.length);
  const unique = renamed.has(image.id) || ID_SUFFIX.test(stem) ? `${stem}-${image.id}` : stem;
  return { stem: unique, fileName: `${unique}${ext}` };
}

/** Whether any exported class is a polygon class, or any exported annotation a polygon or a mask. */
export async function hasAreaShapes(s: Pick<RunState, 'ctx' | 'where' | 'project' | 'classFilter'>): Promise<boolean> {
  if (s.project.classes.some((c) => (classAllowsTool(c, 'polygon') || classAllowsTool(c, 'mask')) && (!s.classFilter || s.classFilter.has(c.name)))) return true;
  const rows = await s.ctx.db
    .select({ one: sql<number>`1` })
    .from(annotations)
    .innerJoin(images, eq(images.id, annotations.imageId))
    .where(and(s.where, inArray(annotations.kind, ['polygon', 'segmentation']), s.classFilter ? inArray(annotations.name, [...s.classFilter]) : undefined))
    .limit(1);
  return rows.length > 0;
}

// --- a stored annotation, read

/** A stored annotation's bounding_box, or null when it is not four numbers. */
export function storedBox(a: Record<string, unknown>): PixelBox | null {
  const b = a.bounding_box as { x?: unknown; y?: unknown; w?: unknown; h?: unknown } | undefined;
  return b && isNum(b.x) && isNum(b.y) && isNum(b.w) && isNum(b.h) ? { x: b.x, y: b.y, w: b.w, h: b.h } : null;
}

/** A stored annotation's mask as COCO RLE, or null when its size or counts are missing. */
export function storedMask(a: Record<string, unknown>): { size: [number, number]; counts: string | number[] } | null {
  const seg = a.segmentation as { size?: unknown; counts?: unknown } | null;
  if (!seg || !Array.isArray(seg.size) || seg.size.length !== 2 || !(typeof seg.counts === 'string' || Array.isArray(seg.counts))) return null;
  return { size: [Number(seg.size[0]), Number(seg.size[1])], counts: seg.counts as string | number[] };
}

export interface ImageSize {
  width: number;
  height: number;
}

/** The image's recorded size, or null when it has none. */
export function imageSize(image: Pick<ImageRow, 'imageWidth' | 'imageHeight'>): ImageSize | null {
  return image.imageWidth && image.imageHeight ? { width: image.imageWidth, height: image.imageHeight } : null;
}

export type Invalid = { kind: 'invalid'; reason: string };

/** One annotation's conversion; a throw (geometry the kernels refuse) makes it invalid, with the reason. */
export function convert<T>(fn: () => T): T | Invalid {
  try {
    return fn();
  } catch (err) {
    return { kind: 'invalid', reason: (err as Error).message };
  }
}

export const NO_BOX = { kind: 'invalid', reason: 'box without coordinates' } as const;
export const NO_MASK = { kind: 'invalid', reason: 'mask without size or counts' } as const;

/** `v` with at most `places` decimals and no trailing zeros ('12', '3.5', '0.333333'). */
export function decimal(v: number, places = 6): string {
  const s = v.toFixed(places).replace(/\.?0+$/, '');
  return s === '-0' ? '0' : s;
}

/** A named attribute of a stored annotation: `{name, value}` (or `{key, value}`) with a name that is text. */
export function namedAttributes(a: Record<string, unknown>): { name: string; value: unknown }[] {
  if (!Array.isArray(a.attributes)) return [];
  const out: { name: string; value: unknown }[] = [];
  for (const x of a.attributes as unknown[]) {
    if (!x || typeof x !== 'object' || Array.isArray(x)) continue;
    const o = x as Record<string, unknown>;
    const name = typeof o.name === 'string' ? o.name : typeof o.key === 'string' ? o.key : null;
    if (name !== null) out.push({ name, value: o.value });
  }
  return out;
}
