import { describe, expect, it } from 'vitest';
import { decodeRle } from '../../../contract/rle';
import { ImportInputError } from '../reader';
import { cvatReader, parsePoints } from './read';
import { cvatMaskToCoco } from './mask';

import { imageNamed, memoryArchive, readAll } from '../../../../tests/support/test-archive';

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0]);

/** A hand-drawn mask ('#' set) as COCO's column-major 0/1 array. */
function drawn(rows: string[]): number[] {
  const h = rows.length;
  const w = rows[0]!.length;
  const out: number[] = [];
  for (let x = 0; x < w; x++) for (let y = 0; y < h; y++) out.push(rows[y]![x] === '#' ? 1 : 0);
  return out;
}

const XML = `<?xml version="1.0" encoding="utf-8"?>
<annotations>
  <version>1.1</version>
  <meta>
    <task>
      <id>7</id>
      <name>roads</name>
      <size>2</size>
      <labels>
        <label><name>car</name><color>#fa3253</color><type>rectangle</type>
          <attributes><attribute><name>colour</name><mutable>False</mutable><input_type>select</input_type><default_value>red</default_value><values>red
blue</values></attribute></attributes>
        </label>
        <label><name>road</name><color>#33ddff</color><type>polygon</type><attributes/></label>
        <label><name>lane</name><color>#ff00cc</color><type>polyline</type><attributes/></label>
        <label><name>hub</name><color>#aabbcc</color><type>points</type><attributes/></label>
        <label><name>blob</name><color>#112233</color><type>mask</type><attributes/></label>
        <label><name>person</name><color>#445566</color><type>skeleton</type><attributes/></label>
      </labels>
    </task>
    <dumped>2026-11-26 09:00:00.000000+00:00</dumped>
  </meta>
  <image id="0" name="street/a.jpg" subset="default" task_id="7" width="640" height="480">
    <box label="car" source="manual" occluded="0" xtl="10.50" ytl="20.00" xbr="40.50" ybr="60.00" z_order="0">
      <attribute name="colour">blue</attribute>
      <attribute name="parked">true</attribute>
      <attribute name="count">2</attribute>
    </box>
    <box label="car" source="manual" occluded="1" xtl="0" ytl="0" xbr="20" ybr="10" rotation="90" z_order="0"></box>
    <polygon label="road" source="manual" occluded="0" points="0.00,0.00;100.00,0.00;100.00,50.00" z_order="0" group_id="3"></polygon>
    <polygon label="road" source="manual" occluded="0" points="0,0;1,1" z_order="0"></polygon>
    <polyline label="lane" source="manual" occluded="0" points="1,2;3,4;5,6" z_order="0"></polyline>
    <points label="hub" source="manual" occluded="0" points="7,8;9,10" z_order="0"></points>
    <ellipse label="car" source="manual" occluded="0" cx="5" cy="5" rx="2" ry="1" z_order="0"></ellipse>
    <skeleton label="person" source="manual" z_order="0">
      <points label="nose" source="manual" outside="0" occluded="0" points="30,40"></points>
      <points label="left_eye" source="manual" outside="0" occluded="1" points="31,39"></points>
      <points label="right_eye" source="manual" outside="1" occluded="0" points="0,0"></points>
    </skeleton>
  </image>
  <image id="1" name="b.jpg" width="5" height="4">
    <mask label="blob" source="manual" occluded="0" rle="0, 2, 2, 2" left="1" top="1" width="3" height="2" z_order="0"></mask>
    <mask label="blob" source="manual" occluded="0" rle="1, 2" left="3" top="3" width="3" height="1" z_order="0"></mask>
    <mask label="blob" source="manual" occluded="0" rle="1, 1, 1" left="0" top="0" width="3" height="1" z_order="0"></mask>
  </image>
</annotations>
`;

describe('CVAT for images reader', () => {
  it('reads labels with colours and types, boxes, rotated boxes, polygons, polylines, points, skeletons, masks and attributes', async () => {
    const archive = memoryArchive({ 'annotations.xml': XML, 'images/street/a.jpg': JPEG, 'images/b.jpg': JPEG });
    expect(await cvatReader.detect(archive)).toBe(true);
    const { dataset, images, report } = await readAll(cvatReader, archive);
    expect(dataset.total).toBe(2);
    expect(dataset.classes).toEqual([
      { name: 'car', type: 'box', color: '#fa3253' },
      { name: 'road', type: 'polygon', color: '#33ddff' },
      { name: 'lane', type: 'polyline', color: '#ff00cc' },
      { name: 'hub', type: 'keypoint', color: '#aabbcc' },
      { name: 'blob', type: 'polygon', color: '#112233' },
      { name: 'person', type: 'keypoint', color: '#445566' },
    ]);
    const a = imageNamed(images, 'a.jpg');
    expect(a).toMatchObject({ entry: 'images/street/a.jpg', folder: 'street', width: 640, height: 480 });
    const [box, rotated, ...rest] = a.annotations;
    expect(box).toEqual({
      class: 'car',
      shape: { type: 'box', x: 10.5, y: 20, w: 30, h: 40 },
      attributes: [
        { name: 'occluded', value: false },
        { name: 'colour', value: 'blue' },
        { name: 'parked', value: true },
        { name: 'count', value: 2 },
      ],
    });
    // 20x10 box turned 90 degrees clockwise about its centre (10, 5): corners (15,-5) (15,15) (5,15) (5,-5).
    expect(rotated!.shape.type).toBe('polygon');
    if (rotated!.shape.type !== 'polygon') throw new Error('not a polygon');
    const expected = [[15, -5], [15, 15], [5, 15], [5, -5]];
    rotated!.shape.path.forEach(([x, y], i) => {
      expect(x).toBeCloseTo(expected[i]![0]!, 9);
      expect(y).toBeCloseTo(expected[i]![1]!, 9);
    });
    expect(rotated!.attributes).toEqual([{ name: 'occluded', value: true }]);
    expect(rest).toEqual([
      { class: 'road', shape: { type: 'polygon', path: [[0, 0], [100, 0], [100, 50]] }, attributes: [{ name: 'occluded', value: false }], extra: { instance: 'group 3' } },
      { class: 'lane', shape: { type: 'polyline', path: [[1, 2], [3, 4], [5, 6]] }, attributes: [{ name: 'occluded', value: false }] },
      { class: 'hub', shape: { type: 'keypoint', x: 7, y: 8 }, attributes: [{ name: 'occluded', value: false }], extra: { instance: 'points 6' } },
      { class: 'hub', shape: { type: 'keypoint', x: 9, y: 10 }, attributes: [{ name: 'occluded', value: false }], extra: { instance: 'points 6' } },
      { class: 'person', shape: { type: 'keypoint', x: 30, y: 40 }, extra: { part: 'nose', instance: 'skeleton 8' } },
      { class: 'person', shape: { type: 'keypoint', x: 31, y: 39 }, attributes: [{ name: 'visible', value: false }], extra: { part: 'left_eye', instance: 'skeleton 8' } },
    ]);

    const b = imageNamed(images, 'b.jpg');
    expect(b.entry).toBe('images/b.jpg');
    expect(b.folder).toBe('');
    expect(b.annotations).toHaveLength(3);
    const [mask, clipped, top] = b.annotations.map((x) => x.shape);
    if (mask!.type !== 'mask' || clipped!.type !== 'mask' || top!.type !== 'mask') throw new Error('not masks');
    expect(mask!.size).toEqual([4, 5]);
    // rle "0, 2, 2, 2" over the 3x2 box at (1, 1): row 0 "##.", row 1 ".##".
    expect([...decodeRle(mask!)]).toEqual(drawn(['.....', '.##..', '..##.', '.....']));
    // "1, 2" over a 3x1 box at (3, 3): ".##", the last pixel past the image's right edge.
    expect([...decodeRle(clipped!)]).toEqual(drawn(['.....', '.....', '.....', '....#']));
    expect([...decodeRle(top!)]).toEqual(drawn(['.#...', '.....', '.....', '.....']));

    expect(report.skipped).toEqual([
      { file: 'annotations.xml line 31 <polygon>', reason: 'a polygon needs at least 3 points, this one has 2' },
      { file: 'annotations.xml line 34 <ellipse>', reason: 'ellipses have no Vellum shape' },
    ]);
    expect(report.warnings).toEqual(['annotations.xml line 43 <mask>: mask cut off at the image border']);
  });

  it('converts CVAT mask RLE pixel for pixel, starting with foreground too', () => {
    // 2x2 box at (0, 0) of a 2x2 image: "#." / "##" row-major -> counts 0,1,1,2.
    const { counts, clipped } = cvatMaskToCoco([0, 1, 1, 2], 0, 0, 2, 2, 2, 2);
    expect(clipped).toBe(false);
    expect([...decodeRle({ size: [2, 2], counts })]).toEqual(drawn(['#.', '##']));
    expect(() => cvatMaskToCoco([1, 1], 0, 0, 2, 2, 2, 2)).toThrow('rle counts sum to 2, expected width*height = 4');
  });

  it('skips a mask whose box or image is over the pixel limit, naming the limit, without walking it (the 1 KB file that froze the server)', async () => {
    const xml = `<annotations><version>1.1</version><meta><task><labels><label><name>blob</name><type>mask</type></label></labels></task></meta>
      <image id="0" name="a.png" width="20000" height="20000">
        <mask label="blob" rle="0, 10000000000" left="0" top="0" width="100000" height="100000"/>
        <mask label="blob" rle="0, 400000000" left="0" top="0" width="20000" height="20000"/>
      </image>
      <image id="1" name="b.png" width="1000000" height="1000000"><mask label="blob" rle="0, 4" left="0" top="0" width="2" height="2"/></image>
      </annotations>`;
    expect(xml.length).toBeLessThan(1024);
    const { images, report } = await readAll(cvatReader, memoryArchive({ 'annotations.xml': xml }));
    expect(report.skipped).toEqual([
      { file: 'annotations.xml line 3 <mask>', reason: "the mask's box is 100000x100000 pixels, more than the 400,000,000 pixels an image may have" },
      { file: 'annotations.xml line 6 <mask>', reason: 'the image is declared as 1000000x1000000 pixels, more than the 400,000,000 pixels an image may have' },
    ]);
    // The whole-image mask is kept, as two runs.
    expect(imageNamed(images, 'a.png').annotations.map((a) => a.shape)).toEqual([{ type: 'mask', size: [20000, 20000], counts: [0, 400_000_000] }]);
  });

  it("takes label types from the geometry for labels of type 'any', and yields annotation-only images", async () => {
    const xml = `<annotations><version>1.1</version><meta><project><labels>
      <label><name>thing</name><type>any</type></label></labels></project></meta>
      <image id="0" name="x.png" width="10" height="10"><polygon label="thing" points="0,0;1,0;1,1"/><box label="other" xtl="0" ytl="0" xbr="1" ybr="1"/></image>
      <track id="0" label="thing"><box frame="0" xtl="0" ytl="0" xbr="1" ybr="1"/></track>
      </annotations>`;
    const { dataset, images, report } = await readAll(cvatReader, memoryArchive({ 'task.xml': xml }));
    expect(dataset.classes).toEqual([{ name: 'thing', type: 'polygon' }, { name: 'other', type: 'box' }]);
    expect(dataset.total).toBe(1);
    expect(images).toHaveLength(1);
    expect(images[0]).toMatchObject({ fileName: 'x.png', folder: '', width: 10, height: 10 });
    expect(images[0]!.entry).toBeUndefined();
    expect(report.skipped).toEqual([{ file: 'task.xml', reason: '1 track(s) of CVAT for video left out: export the task as "CVAT for images 1.1"' }]);
  });

  it('names the file and line of malformed XML, refuses other roots, and is not taken for VOC', async () => {
    const broken = '<annotations>\n<version>1.1</version>\n<image name="a.jpg" width="1" height="1">\n<box label="x" xtl="0" ytl="0" xbr="1" ybr="1">\n</image>\n</annotations>';
    const err = await readAll(cvatReader, memoryArchive({ 'annotations.xml': broken })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ImportInputError);
    expect((err as Error).message).toMatch(/^annotations\.xml: XML error at line 5: /);
    expect(await cvatReader.detect(memoryArchive({ 'Annotations/a.xml': '<annotation></annotation>' }))).toBe(false);
    expect(await cvatReader.detect(memoryArchive({ 'other.xml': '<svg></svg>' }))).toBe(false);
  });

  it('parses CVAT points', () => {
    expect(parsePoints('1.5,2;3,4')).toEqual([[1.5, 2], [3, 4]]);
    expect(parsePoints('1,2;x,4')).toBeNull();
    expect(parsePoints('1,2,3')).toBeNull();
  });
});
