// Pascal VOC: `Annotations/*.xml` (one <annotation> per image) beside `JPEGImages/`, or a lone
// VOC .xml (or a folder of them) whose root is <annotation>. One XML file is read at a time (each
// is small); images are yielded in the order of the XML files, then the archive's images that no
// XML names, without annotations.
//
// Decisions:
// - Pixels: VOC counts from 1 and xmax / ymax are the last pixel inside the box; Vellum's pixel
//   (i, j) covers [i, i+1] x [j, j+1]. A box is x = xmin - 1, y = ymin - 1, w = xmax - xmin + 1,
//   h = ymax - ymin + 1: the inverse of the VOC export's rule (../shapes.ts vocToBox, boxToVoc), so a VOC
//   round trip keeps every box.
// - Attributes: difficult and truncated as booleans (always, false when absent), pose as written
//   (when present), occluded as a boolean when present, and <attributes><attribute><name/><value/>
//   children (CVAT's and Datumaro's convention, which Vellum's VOC export writes) as named
//   attributes ('true' / 'false' and canonical numbers as such, else text).
// - Parts (<part><name>head</name><bndbox/></part>, VOC's person layout): each a box of class
//   '<object name>.<part name>' ('person.head'), and the object and its parts share
//   extra {instance: '<object number>'} (the keypoint rule), so they stay joined.
// - folder: '' for VOC datasets; the <folder> text when the file says it comes from Vellum
//   (<source><database>Vellum</database>), whose export keeps the image's folder there.
// - An object without a readable <bndbox> (missing, not numbers, xmax < xmin) is skipped with
//   `<file> object <n> (<name>)` and its reason. Malformed XML ends the import with its file and line.
// - SegmentationObject/ and SegmentationClass/ PNGs are masks of the image of their stem, never
//   images (./segmentation.ts); an object whose mask has its class shares extra {instance} with
//   it. One that no XML file takes is skipped with a report line.
import type { DatasetRead, FormatReader, ImportArchive, ImportedAnnotation, ImportedImage, NamedAttribute, ReadOptions, ImportReporter } from '../reader';
import { EntryIndex, baseName, dirName, extOf, headText, isImagePath, joinPath, stemOf, toNumber } from '../read-common';
import { child, childText, scalarOf, xmlElements, type XmlElement } from '../xml';
import { vocToBox } from '../shapes';
import { isSegmentationPng, SegmentationIndex } from './segmentation';

const COLLECT = new Set(['annotation']);

const VOC_ROOT = /<annotation[\s>/]/;

/** Annotations/*.xml; else, when the archive's first .xml files (up to 3) have an <annotation> root, every .xml (a lone VOC file, a flat folder of them). */
async function annotationFiles(archive: ImportArchive): Promise<string[]> {
  const inFolder = archive.paths.filter((p) => extOf(p) === 'xml' && baseName(dirName(p)).toLowerCase() === 'annotations');
  if (inFolder.length > 0) return inFolder;
  const xml = archive.paths.filter((p) => extOf(p) === 'xml');
  if (xml.length === 0) return [];
  for (const p of xml.slice(0, 3)) if (!VOC_ROOT.test(await headText(archive, p, 4096))) return [];
  return xml;
}

function flagOf(text: string): boolean {
  return ['1', 'true', 'yes'].includes(text.trim().toLowerCase());
}

type Box = { type: 'box'; x: number; y: number; w: number; h: number };

/** <bndbox> -> a Vellum box (see the pixel rule above), or the reason it cannot be read. */
function boxOf(el: XmlElement): Box | string {
  const bb = child(el, 'bndbox');
  if (!bb) return 'no <bndbox>';
  const [xmin, ymin, xmax, ymax] = ['xmin', 'ymin', 'xmax', 'ymax'].map((k) => toNumber(childText(bb, k)));
  if (xmin === null || ymin === null || xmax === null || ymax === null) return '<bndbox> needs numbers xmin, ymin, xmax and ymax';
  if (xmax < xmin - 1 || ymax < ymin - 1) return `xmax / ymax (${xmax}, ${ymax}) are before xmin / ymin (${xmin}, ${ymin})`;
  return { type: 'box', ...vocToBox(xmin, ymin, xmax, ymax) };
}

function attributesOf(obj: XmlElement): NamedAttribute[] {
  const out: NamedAttribute[] = [
    { name: 'difficult', value: flagOf(childText(obj, 'difficult')) },
    { name: 'truncated', value: flagOf(childText(obj, 'truncated')) },
  ];
  if (child(obj, 'pose')) out.push({ name: 'pose', value: childText(obj, 'pose') });
  if (child(obj, 'occluded')) out.push({ name: 'occluded', value: flagOf(childText(obj, 'occluded')) });
  for (const a of child(obj, 'attributes')?.children ?? []) {
    if (a.name !== 'attribute') continue;
    const name = childText(a, 'name');
    if (name) out.push({ name, value: scalarOf(childText(a, 'value')) });
  }
  return out;
}

const objectElements = (root: XmlElement) => root.children.filter((c) => c.name === 'object');

/** The boxes of an XML file's objects (and their parts); `masked`: object numbers a mask shares its instance with. */
function objectsOf(root: XmlElement, file: string, report: ImportReporter, masked: ReadonlySet<string> = new Set()): ImportedAnnotation[] {
  const out: ImportedAnnotation[] = [];
  objectElements(root)
    .forEach((obj, i) => {
      const name = childText(obj, 'name');
      const where = `${file} object ${i + 1}${name ? ` (${name})` : ''}`;
      if (!name) {
        report.skip(where, 'an object needs a <name>');
        return;
      }
      const box = boxOf(obj);
      if (typeof box === 'string') {
        report.skip(where, box);
        return;
      }
      const parts: ImportedAnnotation[] = [];
      obj.children
        .filter((c) => c.name === 'part')
        .forEach((part, j) => {
          const partName = childText(part, 'name');
          const partBox = partName ? boxOf(part) : 'a part needs a <name>';
          if (typeof partBox === 'string') {
            report.skip(`${where} part ${j + 1}`, partBox);
            return;
          }
          parts.push({ class: `${name}.${partName}`, shape: partBox, extra: { instance: String(i + 1) } });
        });
      const joined = parts.length > 0 || masked.has(String(i + 1));
      out.push({ class: name, shape: box, attributes: attributesOf(obj), ...(joined ? { extra: { instance: String(i + 1) } } : {}) }, ...parts);
    });
  return out;
}

async function readVocFile(archive: ImportArchive, file: string, report: ImportReporter): Promise<XmlElement | null> {
  let root: XmlElement | null = null;
  let rootName = '';
  for await (const el of xmlElements(archive, file, { collect: COLLECT, root: (n) => (rootName = n) })) root ??= el;
  if (!root || rootName !== 'annotation') {
    report.skip(file, `not a VOC annotation (the root element is <${rootName}>, not <annotation>)`);
    return null;
  }
  return root;
}

async function* imagesOf(archive: ImportArchive, files: string[], options: ReadOptions): AsyncGenerator<ImportedImage> {
  const index = new EntryIndex(archive);
  const segmentation = new SegmentationIndex(archive);
  const used = new Set<string>();
  for (const file of files) {
    options.signal?.throwIfAborted();
    const root = await readVocFile(archive, file, options.report);
    if (!root) continue;
    const vocRoot = dirName(dirName(file));
    const fileName = baseName(childText(root, 'filename').replace(/\\/g, '/')) || `${stemOf(file)}.jpg`;
    const entry =
      index.first([joinPath(vocRoot, 'JPEGImages', fileName), joinPath(vocRoot, 'images', fileName)]) ??
      archive.paths.find((p) => isImagePath(p) && dirName(p) === joinPath(vocRoot, 'JPEGImages') && stemOf(p) === stemOf(file)) ??
      index.imageByBaseName(fileName);
    if (entry) used.add(entry);
    const size = child(root, 'size');
    const width = size ? toNumber(childText(size, 'width')) : null;
    const height = size ? toNumber(childText(size, 'height')) : null;
    const fromVellum = childText(child(root, 'source') ?? root, 'database') === 'Vellum';
    yield {
      fileName: entry && !childText(root, 'filename') ? baseName(entry) : fileName,
      ...(entry ? { entry } : {}),
      folder: fromVellum ? childText(root, 'folder') : '',
      ...(width && width > 0 ? { width } : {}),
      ...(height && height > 0 ? { height } : {}),
      annotations: await annotationsOf(root, file, segmentation, options.report),
    };
  }
  for (const entry of archive.paths) {
    if (isImagePath(entry) && !used.has(entry) && !isSegmentationPng(entry)) yield { fileName: baseName(entry), entry, folder: '', annotations: [] };
  }
  for (const png of segmentation.unused()) options.report.skip(png, 'a VOC segmentation mask whose Annotations XML is not in the archive: not imported (a mask is not an image)');
}

/** An XML file's boxes, then the masks of its segmentation PNGs. */
async function annotationsOf(root: XmlElement, file: string, segmentation: SegmentationIndex, report: ImportReporter): Promise<ImportedAnnotation[]> {
  const masks = segmentation.size > 0 ? await segmentation.masks(file, objectElements(root).map((o) => childText(o, 'name')), report) : [];
  const masked = new Set(masks.map((m) => m.extra?.instance).filter((i): i is string => typeof i === 'string'));
  return [...objectsOf(root, file, report, masked), ...masks];
}

/**
 * Class names in the order first seen. VOC lists no classes, so every XML file is read once before
 * the images (only the names are kept); a malformed file ends the import before anything is written.
 */
async function classNames(archive: ImportArchive, files: string[]): Promise<string[]> {
  const names = new Set<string>();
  const silent: ImportReporter = { skip: () => undefined, warn: () => undefined };
  for (const file of files) {
    const root = await readVocFile(archive, file, silent);
    if (root) for (const a of objectsOf(root, file, silent)) names.add(a.class);
  }
  return [...names];
}

export const vocReader: FormatReader = {
  format: 'voc',
  async detect(archive) {
    return (await annotationFiles(archive)).length > 0;
  },
  async read(archive, options): Promise<DatasetRead> {
    const files = await annotationFiles(archive);
    const names = await classNames(archive, files);
    const stems = new Set(files.map((f) => stemOf(f)));
    const total = files.length + archive.paths.filter((p) => isImagePath(p) && !isSegmentationPng(p) && !stems.has(stemOf(p))).length;
    return { classes: names.map((name) => ({ name, type: 'box' as const })), total, images: imagesOf(archive, files, options) };
  },
};
