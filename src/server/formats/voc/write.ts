// Pascal VOC export:
//   Annotations/<stem>.xml        one per image: folder, filename, source, size, segmented 0, objects
//   ImageSets/Main/default.txt    every image's stem, one a line (spooled, written at the end)
//   ImageSets/Main/{train,val,test}.txt   instead, with a split (request `split`): each split's stems
//   JPEGImages/<file name>        only with include_images (the XML's <filename>)
// VOC is flat: images of every folder meet in one directory. Images keep their file names; those
// whose stem another exported image shares (any folder, compared case-insensitively) are renamed
// `<stem>-<image id>` + extension, which no kept name can be (../write-common.ts exportName). The XML keeps
// the Vellum folder in <folder> and the image's path in the project in <source><image>.
//
// Pixel convention: VOC's 1-based, last-pixel-inclusive boxes, by ../shapes.ts boxToVoc (the
// reader uses its inverse, vocToBox). Fractional coordinates are kept as decimals (up to 6 places),
// so a round trip keeps every box to 1e-6 px.
//
// Objects: a box as itself; a polygon (outer ring), polyline or mask as its bounding box, clipped
// to the image; keypoints have no box and are left out (counted in README.txt). pose, truncated and
// difficult come from the annotation's attributes named so (else Unspecified, 0, 0); every other
// named attribute ({name | key, value}) is written as <attributes><attribute><name/><value/>
// (CVAT's and Datumaro's convention, which VOC readers ignore); attributes without a name are not.
import path from 'node:path';
import { Readable } from 'node:stream';
import { numericCounts, rleArea, rleBBox } from '../../../contract/rle';
import type { ImageRow } from '../../services/images';
import { Spool } from '../../services/export/sink';
import { boxToVoc, clipBox, isPath, pathBox, type PixelBox } from '../shapes';
import { convert, decimal, splitOf, exportName, imageSize, leftOutSection, LeftOut, namedAttributes, NO_BOX, NO_MASK, sharedStems, storedBox, storedMask, Tally, type FormatWriter, type ImageSize, type RunState } from '../write-common';

// XML 1.0 cannot carry these even escaped: replaced by U+FFFD.
const XML_INVALID = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;
const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

export function xmlText(v: string): string {
  return v.replace(XML_INVALID, '\ufffd').replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!);
}

export type VocConverted =
  | { kind: 'object'; box: PixelBox; clipped: boolean }
  | { kind: 'keypoint' }
  | { kind: 'invalid'; reason: string };

/** The pixel box a stored annotation becomes, clipped to the image when its size is known. */
export function toVoc(a: Record<string, unknown>, size: ImageSize | null): VocConverted {
  if (a.keypoint !== undefined) return { kind: 'keypoint' };
  let box: PixelBox;
  if (a.segmentation !== undefined) {
    const m = storedMask(a);
    if (!m) return NO_MASK;
    const rle = { size: m.size, counts: numericCounts(m) };
    if (rleArea(rle) === 0) return { kind: 'invalid', reason: 'empty mask' };
    const b = rleBBox(rle);
    box = { x: b.x, y: b.y, w: b.width, h: b.height };
  } else if (a.polygon !== undefined || a.polyline !== undefined) {
    const p = (a.polygon ?? a.polyline) as { path?: unknown };
    if (!isPath(p.path) || p.path.length < 2) return { kind: 'invalid', reason: 'shape without points' };
    box = pathBox(p.path);
  } else {
    const b = storedBox(a);
    if (!b) return NO_BOX;
    box = b;
  }
  if (!size) return box.w > 0 && box.h > 0 ? { kind: 'object', box, clipped: false } : { kind: 'invalid', reason: 'no area' };
  const inside = clipBox(box, size);
  return inside ? { kind: 'object', ...inside } : { kind: 'invalid', reason: 'no area inside the image' };
}

/** VOC's 0 / 1 flags from an attribute value: true, non-zero numbers and '1' / 'true' / 'yes' are 1. */
function flag(v: unknown): 0 | 1 {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number') return v !== 0 ? 1 : 0;
  if (typeof v === 'string') return ['1', 'true', 'yes'].includes(v.trim().toLowerCase()) ? 1 : 0;
  return 0;
}

function attributeText(v: unknown): string {
  if (v === null || v === undefined) return '';
  return typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v as number | boolean);
}

function objectXml(name: string, box: PixelBox, a: Record<string, unknown>): string {
  const attrs = namedAttributes(a);
  const special = new Map<string, unknown>();
  const rest: string[] = [];
  for (const { name: n, value } of attrs) {
    const key = n.trim().toLowerCase();
    if ((key === 'pose' || key === 'truncated' || key === 'difficult') && !special.has(key)) special.set(key, value);
    else rest.push(`      <attribute>\n        <name>${xmlText(n)}</name>\n        <value>${xmlText(attributeText(value))}</value>\n      </attribute>`);
  }
  const pose = attributeText(special.get('pose')).trim() || 'Unspecified';
  const [xmin, ymin, xmax, ymax] = boxToVoc(box).map((v) => decimal(v));
  return [
    '  <object>',
    `    <name>${xmlText(name)}</name>`,
    `    <pose>${xmlText(pose)}</pose>`,
    `    <truncated>${flag(special.get('truncated'))}</truncated>`,
    `    <difficult>${flag(special.get('difficult'))}</difficult>`,
    `    <bndbox>\n      <xmin>${xmin}</xmin>\n      <ymin>${ymin}</ymin>\n      <xmax>${xmax}</xmax>\n      <ymax>${ymax}</ymax>\n    </bndbox>`,
    ...(rest.length ? ['    <attributes>', ...rest, '    </attributes>'] : []),
    '  </object>',
  ].join('\n');
}

export class VocWriter implements FormatWriter {
  /** The image sets: `default`, or one per split. */
  private readonly stems = new Map<string, Spool>();
  private readonly leftOut = new LeftOut();
  private readonly renamedList = new Tally();
  private clipped = 0;

  static async create(s: RunState): Promise<VocWriter> {
    return new VocWriter(s, await sharedStems(s, false));
  }

  private constructor(
    private readonly s: RunState,
    private readonly renamed: ReadonlySet<string>,
  ) {
    for (const set of s.split ? s.split.names : ['default']) this.stems.set(set, new Spool(path.join(s.tmp, `stems-${set}.txt`), '\n'));
  }

  imagePath(image: ImageRow): string {
    return `JPEGImages/${exportName(image, this.renamed).fileName}`;
  }

  async image(image: ImageRow, rel: string, annotations: Record<string, unknown>[]): Promise<void> {
    const { s } = this;
    const { stem, fileName } = exportName(image, this.renamed);
    if (fileName !== image.filename) this.renamedList.add(`${rel}\t${fileName}`);
    const size = imageSize(image);
    const objects: string[] = [];
    for (const a of annotations) {
      if (s.slice.due()) await s.slice.pause();
      const className = String(a.name ?? '');
      const c = convert(() => toVoc(a, size));
      if (c.kind === 'keypoint') {
        this.leftOut.add('keypoint', className);
        continue;
      }
      if (c.kind === 'invalid') {
        s.report.invalid.add(`${rel}\t${className}\t${String(a.id ?? '')}\t${c.reason}`);
        continue;
      }
      if (c.clipped) this.clipped += 1;
      s.report.annotations += 1;
      objects.push(objectXml(className, c.box, a));
    }
    this.leftOut.flush(s.report, rel);
    const folder = image.virtualFolderPath.replace(/^\/+/, '');
    const xml = [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<annotation>',
      `  <folder>${xmlText(folder)}</folder>`,
      `  <filename>${xmlText(fileName)}</filename>`,
      `  <source>\n    <database>Vellum</database>\n    <image>${xmlText(rel)}</image>\n  </source>`,
      `  <size>\n    <width>${image.imageWidth ?? 0}</width>\n    <height>${image.imageHeight ?? 0}</height>\n    <depth>3</depth>\n  </size>`,
      '  <segmented>0</segmented>',
      ...objects,
      '</annotation>',
    ];
    await s.sink.addText(`Annotations/${stem}.xml`, `${xml.join('\n')}\n`);
    await this.stems.get(splitOf(s, image) ?? 'default')!.push(stem);
  }

  async finish(): Promise<void> {
    for (const [set, stems] of this.stems) {
      await stems.close();
      async function* body() {
        yield* stems.chunks();
        if (stems.count > 0) yield Buffer.from('\n');
      }
      await this.s.sink.room();
      // Read while the entry is written; run() removes the spool only after the zip ended.
      this.s.sink.add(Readable.from(body()), `ImageSets/Main/${set}.txt`, true);
    }
  }

  readme(): string[] {
    const lines = [
      'Layout: Annotations/<stem>.xml (Pascal VOC, one per image: folder, filename, source, size, segmented 0, objects)',
      this.s.split
        ? `        ImageSets/Main/{${this.s.split.names.join(',')}}.txt (each split's image stems, one a line)`
        : '        ImageSets/Main/default.txt (every image\'s stem, one a line)',
      '        JPEGImages/<file name> (when image files are included; the XML\'s filename)',
      'VOC is flat: <folder> holds the image\'s Vellum folder and <source><image> its path in the project. <depth> is',
      'always 3 (Vellum does not record channels).',
      '',
      'Boxes: pixels in VOC\'s convention, counted from 1 with xmax / ymax the last pixel inside the box:',
      '  xmin = x + 1, ymin = y + 1, xmax = x + w, ymax = y + h for a Vellum box at x, y of size w x h (0-based edges),',
      '  so a box over the whole image is 1, 1, width, height. Back: x = xmin - 1, w = xmax - xmin + 1.',
      '  Fractional coordinates are kept as decimals (up to 6 places).',
      'Objects: boxes as themselves; polygons (outer ring), polylines and masks as their bounding boxes; clipped to the image.',
      'pose, truncated and difficult come from attributes named so (else Unspecified, 0, 0); other attributes with a name',
      'are written as <attributes><attribute><name/><value/></attribute></attributes>; attributes without a name are not.',
    ];
    if (this.clipped) lines.push(`Clipped to the image: ${this.clipped} annotation(s).`);
    lines.push('');
    lines.push(...leftOutSection(this.s.report, 'keypoint', 'Keypoints', 'a point has no box'));
    if (this.renamedList.count) {
      lines.push('');
      lines.push(`Renamed (${this.renamedList.count}): images that share a stem (in any folders) would share Annotations/<stem>.xml, so each is saved as <stem>-<image id>:`);
      lines.push('image\tsaved as');
      this.renamedList.list(lines);
    }
    return lines;
  }
}
