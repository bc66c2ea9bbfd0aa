import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { decodeRle, numericCounts } from '../../../contract/rle';
import { ImportInputError } from '../reader';
import { vocReader } from './read';
import { vocColor } from './segmentation';
import { memoryArchive, readAll } from '../../../../tests/support/test-archive';
import { CLASSES, columnMajor, OBJECTS, SEG_H as H, SEG_W as W, segmentedVoc } from '../../../../tests/fixtures/voc-segmentation';

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0]);

const PERSON = `<?xml version="1.0"?>
<annotation>
  <folder>VOC2012</folder>
  <filename>2007_000027.jpg</filename>
  <source><database>The VOC2007 Database</database></source>
  <size><width>486</width><height>500</height><depth>3</depth></size>
  <segmented>0</segmented>
  <object>
    <name>person</name>
    <pose>Frontal</pose>
    <truncated>1</truncated>
    <difficult>0</difficult>
    <occluded>1</occluded>
    <bndbox><xmin>174</xmin><ymin>101</ymin><xmax>349</xmax><ymax>351</ymax></bndbox>
    <part><name>head</name><bndbox><xmin>169</xmin><ymin>104</ymin><xmax>209</xmax><ymax>146</ymax></bndbox></part>
    <part><name>hand</name><bndbox><xmin>x</xmin></bndbox></part>
    <attributes>
      <attribute><name>colour</name><value>red</value></attribute>
      <attribute><name>moving</name><value>true</value></attribute>
      <attribute><name>count</name><value>3</value></attribute>
      <attribute><name>code</name><value>007</value></attribute>
    </attributes>
  </object>
  <object>
    <name>dog</name>
    <bndbox><xmin>10.5</xmin><ymin>20</ymin><xmax>30</xmax><ymax>40.25</ymax></bndbox>
  </object>
  <object>
    <name>cat</name>
  </object>
</annotation>
`;

describe('VOC reader', () => {
  it('reads boxes with difficult, truncated, pose, occluded, attributes and parts', async () => {
    const archive = memoryArchive({
      'VOC2012/Annotations/2007_000027.xml': PERSON,
      'VOC2012/JPEGImages/2007_000027.jpg': JPEG,
      'VOC2012/JPEGImages/unlabelled.jpg': JPEG,
      'VOC2012/ImageSets/Main/train.txt': '2007_000027\n',
    });
    expect(await vocReader.detect(archive)).toBe(true);
    const { dataset, images, report } = await readAll(vocReader, archive);
    expect(dataset.classes).toEqual([
      { name: 'person', type: 'box' },
      { name: 'person.head', type: 'box' },
      { name: 'dog', type: 'box' },
    ]);
    expect(dataset.total).toBe(2);
    expect(images).toHaveLength(2);
    const [img, unlabelled] = images;
    expect(img).toMatchObject({ fileName: '2007_000027.jpg', entry: 'VOC2012/JPEGImages/2007_000027.jpg', folder: '', width: 486, height: 500 });
    expect(img!.annotations).toEqual([
      {
        class: 'person',
        // VOC's 1-based, last-pixel-inclusive box -> continuous pixels.
        shape: { type: 'box', x: 173, y: 100, w: 176, h: 251 },
        attributes: [
          { name: 'difficult', value: false },
          { name: 'truncated', value: true },
          { name: 'pose', value: 'Frontal' },
          { name: 'occluded', value: true },
          { name: 'colour', value: 'red' },
          { name: 'moving', value: true },
          { name: 'count', value: 3 },
          { name: 'code', value: '007' },
        ],
        extra: { instance: '1' },
      },
      { class: 'person.head', shape: { type: 'box', x: 168, y: 103, w: 41, h: 43 }, extra: { instance: '1' } },
      { class: 'dog', shape: { type: 'box', x: 9.5, y: 19, w: 20.5, h: 21.25 }, attributes: [{ name: 'difficult', value: false }, { name: 'truncated', value: false }] },
    ]);
    expect(unlabelled).toEqual({ fileName: 'unlabelled.jpg', entry: 'VOC2012/JPEGImages/unlabelled.jpg', folder: '', annotations: [] });
    expect(report.skipped).toEqual([
      { file: 'VOC2012/Annotations/2007_000027.xml object 1 (person) part 2', reason: '<bndbox> needs numbers xmin, ymin, xmax and ymax' },
      { file: 'VOC2012/Annotations/2007_000027.xml object 3 (cat)', reason: 'no <bndbox>' },
    ]);
  });

  it("keeps the folder of Vellum's own VOC export, and reads XML without its image as annotation-only", async () => {
    const xml = '<annotation><folder>site a/day 1</folder><filename>x.png</filename><source><database>Vellum</database><image>site a/day 1/x.png</image></source><size><width>0</width><height>0</height><depth>3</depth></size></annotation>';
    const { images } = await readAll(vocReader, memoryArchive({ 'Annotations/x.xml': xml }));
    expect(images).toEqual([{ fileName: 'x.png', folder: 'site a/day 1', annotations: [] }]);
  });

  it('names the file and line of malformed XML, and skips a file that is not a VOC annotation', async () => {
    const broken = memoryArchive({ 'Annotations/a.xml': '<annotation>\n<object>\n<name>x</nme>\n</object>\n</annotation>' });
    const err = await readAll(vocReader, broken).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImportInputError);
    expect((err as Error).message).toMatch(/^Annotations\/a\.xml: XML error at line 3: /);
    const { images, report } = await readAll(vocReader, memoryArchive({ 'Annotations/b.xml': '<svg/>' }));
    expect(images).toEqual([]);
    expect(report.skipped).toEqual([{ file: 'Annotations/b.xml', reason: 'not a VOC annotation (the root element is <svg>, not <annotation>)' }]);
  });

  it('never expands entities declared in a DTD: the file is an XML error', async () => {
    const xml = '<!DOCTYPE annotation [<!ENTITY a "aaaa">]>\n<annotation><filename>&a;</filename></annotation>';
    const err = await readAll(vocReader, memoryArchive({ 'Annotations/c.xml': xml })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImportInputError);
  });

  it('reads SegmentationObject with SegmentationClass as one mask per object with its class, never as images', async () => {
    const { images, report, dataset } = await readAll(vocReader, memoryArchive(segmentedVoc(JPEG)));
    expect(images.map((i) => i.entry)).toEqual(['VOC2012/JPEGImages/2007_000032.jpg']);
    expect(dataset.total).toBe(1);
    const [img] = images;
    const boxes = img!.annotations.filter((a) => a.shape.type === 'box');
    const masks = img!.annotations.filter((a) => a.shape.type === 'mask');
    // Object numbers match the XML's objects of the same class: box and mask are one object.
    expect(boxes.map((a) => [a.class, a.extra])).toEqual([
      ['aeroplane', { instance: '1' }],
      ['person', { instance: '2' }],
    ]);
    expect(masks.map((a) => [a.class, a.extra])).toEqual([
      ['aeroplane', { instance: '1' }],
      ['person', { instance: '2' }],
      // Object 3 has no XML object: its class comes from SegmentationClass alone.
      ['dog', undefined],
    ]);
    masks.forEach((m, i) => expect(pixelsOf(m.shape), m.class).toEqual(columnMajor(OBJECTS, i + 1)));
    expect(report.skipped).toEqual([{ file: 'VOC2012/SegmentationObject/2007_000099.png', reason: 'a VOC segmentation mask whose Annotations XML is not in the archive: not imported (a mask is not an image)' }]);
    expect(report.warnings).toEqual([]);
  });

  it('reads SegmentationClass alone (RGB too) as one mask per class', async () => {
    const entries = segmentedVoc(JPEG);
    delete entries['VOC2012/SegmentationObject/2007_000032.png'];
    delete entries['VOC2012/SegmentationObject/2007_000099.png'];
    const rgb = Buffer.alloc(W * H * 3);
    CLASSES.forEach((k, i) => rgb.writeUIntBE(vocColor(k), i * 3, 3));
    entries['VOC2012/SegmentationClass/2007_000032.png'] = await sharp(rgb, { raw: { width: W, height: H, channels: 3 } }).png().toBuffer();
    const { images, report } = await readAll(vocReader, memoryArchive(entries));
    const masks = images[0]!.annotations.filter((a) => a.shape.type === 'mask');
    expect(masks.map((a) => a.class)).toEqual(['aeroplane', 'dog', 'person']);
    expect(masks.map((m) => pixelsOf(m.shape))).toEqual([1, 12, 15].map((k) => columnMajor(CLASSES, k)));
    expect(report.skipped).toEqual([]);
  });
});

function pixelsOf(shape: unknown): number[] {
  const m = shape as { size: [number, number]; counts: number[] | string };
  expect(m.size).toEqual([H, W]);
  return Array.from(decodeRle({ size: m.size, counts: numericCounts(m) }));
}
