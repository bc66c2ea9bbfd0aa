// CVAT for images 1.1 XML (`annotations.xml`, alone or in CVAT's zip beside `images/`):
//   <annotations><version>1.1</version>
//     <meta><task|project|job> ... <labels><label><name/><color/><type/><attributes/></label></labels></meta>
//     <image id name width height> <box/> <polygon/> <polyline/> <points/> <mask/> <skeleton/> ... </image>
// The file is streamed with saxes: only <meta> and the current <image> are ever built.
//
// Decisions:
// - box (xtl ytl xbr ybr) -> box; one with a rotation (degrees, clockwise about its centre) -> the
//   rotated rectangle as a polygon (Vellum boxes do not rotate).
// - polygon / polyline -> themselves (under 3 / 2 points skipped with the reason); points -> one
//   keypoint per point, several points of one element sharing extra {instance}; skeleton -> its
//   points as keypoints of the skeleton's label with extra {part: point label, instance}
//   (outside="1" points left out, occluded ones with attribute visible false), as the COCO reader does.
// - mask: CVAT's rle counts alternate background / foreground over the mask's own box (left, top,
//   width, height), row by row, starting with background; it becomes a COCO-order RLE over the
//   whole image (column-major, size [height, width] of the <image>), pixels outside the image cut
//   off with a warning. The conversion works on runs, never on a bitmap (./cvat-mask.ts): a box
//   or image over MAX_IMAGE_PIXELS, or a mask of more than MAX_IMPORT_MASK_RUNS runs, is skipped
//   with the limit it exceeds.
// - Attributes: occluded as a boolean on every shape; <attribute name="...">value</attribute>
//   children as named attributes ('true' / 'false' and canonical numbers as such, else text).
//   A non-zero group_id becomes extra {instance: 'group <id>'}, so grouped shapes stay joined.
// - ellipse, cuboid, tag and tracks (CVAT for video) have no Vellum shape: skipped with a reason.
// - Classes: the labels of <meta> with their colours; type from the label's type (rectangle ->
//   box, polygon / mask -> polygon, polyline, points / skeleton -> keypoint). Labels of type 'any'
//   (or labels met only in shapes) take the type of the geometry seen, which needs one extra pass
//   over the file (only then).
// - ImportedImage.fileName is the base name of <image name>; folder is the folder part of that
//   name (CVAT keeps the uploaded relative path); entry is found under images/ beside the XML.
import type { AnnotationType } from '../../../contract/projects';
import { ImportInputError, type DatasetRead, type FormatReader, type ImportArchive, type ImportedAnnotation, type ImportedClass } from '../reader';
import type { ImportedImage, ImportedShape, ImportReporter, NamedAttribute, Point, ReadOptions } from '../reader';
import { EntryIndex, baseName, dirName, extOf, headText, isImagePath, joinPath, toNumber } from '../read-common';
import { childText, scalarOf, xmlElements, type XmlElement } from '../xml';
import { cvatMaskToCoco, MaskRefused } from './mask';

const CVAT_ROOT = /<annotations[\s>]/;
const LABEL_TYPES: Record<string, AnnotationType> = { rectangle: 'box', polygon: 'polygon', mask: 'polygon', polyline: 'polyline', points: 'keypoint', skeleton: 'keypoint' };
const SHAPE_TYPES: Record<string, AnnotationType> = { box: 'box', polygon: 'polygon', mask: 'polygon', polyline: 'polyline', points: 'keypoint', skeleton: 'keypoint' };
const UNSUPPORTED: Record<string, string> = {
  ellipse: 'ellipses have no Vellum shape',
  cuboid: 'cuboids have no Vellum shape',
  tag: 'image tags have no Vellum shape',
};

async function cvatFile(archive: ImportArchive): Promise<string | undefined> {
  const xml = archive.paths
    .filter((p) => extOf(p) === 'xml' && baseName(dirName(p)).toLowerCase() !== 'annotations')
    .sort((a, b) => a.split('/').length - b.split('/').length || Number(baseName(b) === 'annotations.xml') - Number(baseName(a) === 'annotations.xml'));
  for (const p of xml.slice(0, 3)) if (CVAT_ROOT.test(await headText(archive, p, 4096))) return p;
  return undefined;
}

function refuseOtherRoots(file: string) {
  return (name: string) => {
    if (name !== 'annotations') throw new ImportInputError(`${file}: not a CVAT for images file (the root element is <${name}>, not <annotations>)`);
  };
}

/** "x1,y1;x2,y2" -> points, or null when a value is not a number. */
export function parsePoints(text: string): Point[] | null {
  const out: Point[] = [];
  for (const pair of text.split(';')) {
    if (pair.trim() === '') continue;
    const [x, y, more] = pair.split(',').map((v) => toNumber(v));
    if (x === null || y === null || x === undefined || y === undefined || more !== undefined) return null;
    out.push([x, y]);
  }
  return out;
}

/** The four corners of a box rotated by `degrees` clockwise (y down) about its centre. */
function rotatedBox(xtl: number, ytl: number, xbr: number, ybr: number, degrees: number): Point[] {
  const cx = (xtl + xbr) / 2;
  const cy = (ytl + ybr) / 2;
  const a = (degrees * Math.PI) / 180;
  const cos = Math.cos(a);
  const sin = Math.sin(a);
  const corners: Point[] = [[xtl, ytl], [xbr, ytl], [xbr, ybr], [xtl, ybr]];
  return corners.map(([x, y]) => [cx + (x - cx) * cos - (y - cy) * sin, cy + (x - cx) * sin + (y - cy) * cos]);
}

function attributesOf(el: XmlElement): NamedAttribute[] {
  const out: NamedAttribute[] = [];
  if (el.attrs.occluded !== undefined) out.push({ name: 'occluded', value: el.attrs.occluded === '1' || el.attrs.occluded.toLowerCase() === 'true' });
  for (const a of el.children) if (a.name === 'attribute' && a.attrs.name) out.push({ name: a.attrs.name, value: scalarOf(a.text) });
  return out;
}

interface ImageContext {
  file: string;
  where: string;
  width: number | null;
  height: number | null;
  report: ImportReporter;
}

/** The shapes of one child of <image>, or the reason it has none. */
function shapesOf(el: XmlElement, ctx: ImageContext): ImportedShape[] | string {
  const num = (k: string) => toNumber(el.attrs[k]);
  switch (el.name) {
    case 'box': {
      const [xtl, ytl, xbr, ybr] = [num('xtl'), num('ytl'), num('xbr'), num('ybr')];
      if (xtl === null || ytl === null || xbr === null || ybr === null) return 'a box needs numbers xtl, ytl, xbr and ybr';
      if (xbr < xtl || ybr < ytl) return 'xbr / ybr are before xtl / ytl';
      const rotation = num('rotation') ?? 0;
      if (rotation % 360 !== 0) return [{ type: 'polygon', path: rotatedBox(xtl, ytl, xbr, ybr, rotation) }];
      return [{ type: 'box', x: xtl, y: ytl, w: xbr - xtl, h: ybr - ytl }];
    }
    case 'polygon':
    case 'polyline':
    case 'points': {
      const path = parsePoints(el.attrs.points ?? '');
      if (!path) return 'points must be "x,y;x,y;..." numbers';
      const min = el.name === 'polygon' ? 3 : el.name === 'polyline' ? 2 : 1;
      if (path.length < min) return `a ${el.name === 'points' ? 'points element' : el.name} needs at least ${min} point${min > 1 ? 's' : ''}, this one has ${path.length}`;
      if (el.name === 'points') return path.map(([x, y]) => ({ type: 'keypoint', x, y }));
      return [{ type: el.name, path }];
    }
    case 'mask': {
      const [left, top, width, height] = [num('left'), num('top'), num('width'), num('height')];
      if ([left, top, width, height].some((v) => v === null || !Number.isInteger(v)) || width! < 0 || height! < 0) return 'a mask needs whole numbers left, top, width and height';
      if (!ctx.width || !ctx.height) return 'a mask needs the image width and height';
      const counts = (el.attrs.rle ?? '').split(',').map((v) => toNumber(v));
      if (counts.some((c) => c === null || !Number.isInteger(c) || c < 0)) return 'rle must be whole numbers separated by commas';
      let coco;
      try {
        coco = cvatMaskToCoco(counts as number[], left!, top!, width!, height!, ctx.width, ctx.height);
      } catch (err) {
        if (err instanceof MaskRefused) return err.message;
        throw err;
      }
      if (coco.clipped) ctx.report.warn(`${ctx.where}: mask cut off at the image border`);
      return [{ type: 'mask', size: [ctx.height, ctx.width], counts: coco.counts }];
    }
    default:
      return UNSUPPORTED[el.name] ?? `<${el.name}> is not a CVAT for images shape`;
  }
}

function annotationsOf(image: XmlElement, ctx: Omit<ImageContext, 'where'>): ImportedAnnotation[] {
  const out: ImportedAnnotation[] = [];
  image.children.forEach((el, i) => {
    const where = `${ctx.file} line ${el.line} <${el.name}>`;
    const label = el.attrs.label ?? '';
    if (label === '') {
      ctx.report.skip(where, 'a shape needs a label');
      return;
    }
    const group = el.attrs.group_id && el.attrs.group_id !== '0' ? `group ${el.attrs.group_id}` : undefined;
    const attributes = attributesOf(el);
    if (el.name === 'skeleton') {
      const instance = group ?? `skeleton ${i + 1}`;
      for (const p of el.children) {
        if (p.name !== 'points' || p.attrs.outside === '1') continue;
        const path = parsePoints(p.attrs.points ?? '');
        if (!path || path.length !== 1) {
          ctx.report.skip(`${ctx.file} line ${p.line} <points>`, 'a skeleton point needs one "x,y"');
          continue;
        }
        const pointAttrs = attributesOf(p).filter((a) => a.name !== 'occluded');
        if (p.attrs.occluded === '1') pointAttrs.push({ name: 'visible', value: false });
        const attrs = [...attributes, ...pointAttrs];
        out.push({ class: label, shape: { type: 'keypoint', x: path[0]![0], y: path[0]![1] }, ...(attrs.length ? { attributes: attrs } : {}), extra: { part: p.attrs.label ?? '', instance } });
      }
      return;
    }
    const shapes = shapesOf(el, { ...ctx, where });
    if (typeof shapes === 'string') {
      ctx.report.skip(where, shapes);
      return;
    }
    const instance = group ?? (shapes.length > 1 ? `points ${i + 1}` : undefined);
    for (const shape of shapes) out.push({ class: label, shape, ...(attributes.length ? { attributes } : {}), ...(instance ? { extra: { instance } } : {}) });
  });
  return out;
}

/** Labels of <meta> (task, project or job): name -> class. */
function labelsOf(meta: XmlElement | undefined): Map<string, ImportedClass> {
  const out = new Map<string, ImportedClass>();
  const visit = (el: XmlElement) => {
    if (el.name === 'label' && childText(el, 'name')) {
      const name = childText(el, 'name');
      const cls: ImportedClass = { name };
      const type = LABEL_TYPES[childText(el, 'type')];
      if (type) cls.type = type;
      const color = childText(el, 'color');
      if (/^#[0-9a-fA-F]{6}$/.test(color)) cls.color = color;
      if (!out.has(name)) out.set(name, cls);
      return;
    }
    el.children.forEach(visit);
  };
  if (meta) visit(meta);
  return out;
}

/** Frames the meta announces (<task> or <job> <size>, summed over a project's tasks): the progress total. */
function sizeOf(meta: XmlElement): number {
  let total = 0;
  const visit = (el: XmlElement) => {
    if (el.name === 'task' || el.name === 'job') total += toNumber(childText(el, 'size')) ?? 0;
    else el.children.forEach(visit);
  };
  visit(meta);
  return total;
}

/**
 * The <meta> labels. When some label has no type ('any', or no <meta>), the rest of the file is
 * read once more for the geometry of each label's shapes; otherwise reading stops after <meta>.
 */
async function classesOf(archive: ImportArchive, file: string): Promise<{ classes: ImportedClass[]; total: number }> {
  let labels = new Map<string, ImportedClass>();
  let images = 0;
  let total = 0;
  let needGeometry = true;
  const seen = new Map<string, Set<AnnotationType>>();
  for await (const el of xmlElements(archive, file, { collect: new Set(['meta', 'image']), root: refuseOtherRoots(file) })) {
    if (el.name === 'meta') {
      labels = labelsOf(el);
      total = sizeOf(el);
      needGeometry = labels.size === 0 || [...labels.values()].some((c) => !c.type);
      if (!needGeometry) break;
      continue;
    }
    images += 1;
    for (const s of el.children) {
      const label = s.attrs.label;
      const type = SHAPE_TYPES[s.name];
      if (!label || !type) continue;
      if (!seen.has(label)) seen.set(label, new Set());
      seen.get(label)!.add(type);
    }
  }
  for (const [name, types] of seen) {
    const cls = labels.get(name) ?? { name };
    cls.type ??= (['keypoint', 'polygon', 'polyline', 'box'] as const).find((t) => types.has(t));
    labels.set(name, cls);
  }
  return { classes: [...labels.values()], total: needGeometry ? images : total };
}

async function* imagesOf(archive: ImportArchive, file: string, options: ReadOptions): AsyncGenerator<ImportedImage> {
  const index = new EntryIndex(archive);
  const root = dirName(file);
  const used = new Set<string>();
  let tracks = 0;
  for await (const el of xmlElements(archive, file, { collect: new Set(['image', 'track']), root: refuseOtherRoots(file) })) {
    options.signal?.throwIfAborted();
    if (el.name === 'track') {
      tracks += 1;
      continue;
    }
    const name = (el.attrs.name ?? '').replace(/\\/g, '/');
    if (name === '') {
      options.report.skip(`${file} line ${el.line} <image>`, 'an image needs a name');
      continue;
    }
    const safe = !/^[a-z]:|^\/|(^|\/)\.\.(\/|$)/i.test(name);
    const rel = safe ? name : baseName(name);
    const entry = index.first([joinPath(root, 'images', rel), joinPath(root, rel), joinPath('images', rel)]) ?? index.imageByBaseName(rel);
    if (entry) used.add(entry);
    const width = toNumber(el.attrs.width);
    const height = toNumber(el.attrs.height);
    const w = width && width > 0 ? Math.round(width) : null;
    const h = height && height > 0 ? Math.round(height) : null;
    yield {
      fileName: baseName(rel),
      ...(entry ? { entry } : {}),
      folder: dirName(rel),
      ...(w ? { width: w } : {}),
      ...(h ? { height: h } : {}),
      annotations: annotationsOf(el, { file, width: w, height: h, report: options.report }),
    };
  }
  if (tracks > 0) options.report.skip(file, `${tracks} track(s) of CVAT for video left out: export the task as "CVAT for images 1.1"`);
  for (const p of archive.paths) if (isImagePath(p) && !used.has(p)) yield { fileName: baseName(p), entry: p, folder: '', annotations: [] };
}

export const cvatReader: FormatReader = {
  format: 'cvat',
  async detect(archive) {
    return (await cvatFile(archive)) !== undefined;
  },
  async read(archive, options): Promise<DatasetRead> {
    const file = await cvatFile(archive);
    if (!file) throw new ImportInputError('No CVAT for images file found: expected annotations.xml with an <annotations> root');
    const { classes, total } = await classesOf(archive, file);
    return { classes, total, images: imagesOf(archive, file, options) };
  },
};
