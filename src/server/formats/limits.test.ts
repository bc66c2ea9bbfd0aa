// Malformed input fails with an ImportInputError naming the file and the limit (issue 30): deep
// JSON, deep XML and YAML alias bombs used to throw a RangeError or ReferenceError, which the
// queue took for a crash and retried three times.
import { describe, expect, it } from 'vitest';
import { MAX_IMPORT_NESTING } from '../../contract/imports';
import { ImportInputError, type FormatReader } from './reader';
import { cocoReader } from './coco/read';
import { cvatReader } from './cvat/read';
import { nestingOf } from './json-scan';
import { memoryArchive, readAll } from '../../../tests/support/test-archive';
import { vellumReader } from './vellum/read';
import { vocReader } from './voc/read';
import { yoloReader } from './yolo/read';

const deepJson = (n: number) => '['.repeat(n) + ']'.repeat(n);

async function failure(reader: FormatReader, files: Record<string, string>): Promise<Error> {
  const err = await readAll(reader, memoryArchive(files)).then(
    () => null,
    (e: unknown) => e as Error,
  );
  expect(err, 'the read should fail').not.toBeNull();
  return err!;
}

describe('imported files past the nesting and alias limits', () => {
  it('refuses COCO JSON nested deeper than the limit, naming the file', async () => {
    const coco = `{"images":[{"id":1,"file_name":"a.png","width":10,"height":10}],"categories":[{"id":1,"name":"x"}],"annotations":[{"id":1,"image_id":1,"category_id":1,"bbox":[1,1,2,2],"attributes":{"deep":${deepJson(100_000)}}}]}`;
    const err = await failure(cocoReader, { 'instances.json': coco });
    expect(err).toBeInstanceOf(ImportInputError);
    expect(err.message).toBe(`instances.json: JSON nested more than ${MAX_IMPORT_NESTING} levels deep; at most ${MAX_IMPORT_NESTING} are read`);
  });

  it('refuses a Vellum document nested deeper than the limit', async () => {
    const manifest = JSON.stringify({ format: 'vellum', version: 1, classes: [{ name: 'x', type: 'box', color: '#112233' }] });
    const doc = `{"image":{"filename":"a.png"},"annotations":[{"id":"a","name":"x","bounding_box":{"x":1,"y":1,"w":1,"h":1},"deep":${deepJson(100_000)}}]}`;
    const err = await failure(vellumReader, { 'vellum.json': manifest, 'annotations/a.png.json': doc });
    expect(err).toBeInstanceOf(ImportInputError);
    expect(err.message).toMatch(new RegExp(`JSON nested more than ${MAX_IMPORT_NESTING} levels deep`));
  });

  it('refuses CVAT and VOC XML nested deeper than the limit, naming the file and line', async () => {
    const deep = '<a>\n'.repeat(50_000) + '</a>'.repeat(50_000);
    const cvat = await failure(cvatReader, { 'annotations.xml': `<annotations><version>1.1</version><meta>${deep}</meta></annotations>` });
    expect(cvat).toBeInstanceOf(ImportInputError);
    expect(cvat.message).toBe(`annotations.xml: XML nested more than ${MAX_IMPORT_NESTING} levels deep at line 99; at most ${MAX_IMPORT_NESTING} are read`);
    const voc = await failure(vocReader, { 'Annotations/a.xml': `<annotation>${deep}</annotation>` });
    expect(voc).toBeInstanceOf(ImportInputError);
    expect(voc.message).toMatch(/^Annotations\/a\.xml: XML nested more than 100 levels deep/);
  });

  it('refuses a YAML alias bomb, naming the file', async () => {
    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 8; i++) {
      const prev = String.fromCharCode(96 + i);
      levels.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    const bomb = `${levels.join('\n')}\nnames: *h\n`;
    const err = await failure(yoloReader, { 'data.yaml': bomb, 'images/a.png': 'x', 'labels/a.txt': '0 0.5 0.5 0.1 0.1\n' });
    expect(err).toBeInstanceOf(ImportInputError);
    expect(err.message).toBe('data.yaml: YAML aliases expand too far; at most 100 are followed');
  });

  it('measures JSON nesting outside strings only', () => {
    expect(nestingOf(Buffer.from('{"a":[1,{"b":"[[[[\\"{"}]}'))).toBe(3);
    expect(nestingOf(Buffer.from('"[[["'))).toBe(0);
  });
});
