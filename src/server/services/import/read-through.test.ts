// The import's dry run on an offload thread (issue 30: archive parsing off the request thread):
// what the thread reads matches the dataset, and bad input comes back as an ImportInputError.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { closeOffloadPool, offload } from '../../offload/pool';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vellum-read-through-'));
afterAll(async () => {
  await closeOffloadPool();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function zipFile(name: string, files: Record<string, string>): Promise<string> {
  const zip = new JSZip();
  for (const [p, v] of Object.entries(files)) zip.file(p, v);
  const file = path.join(dir, name);
  fs.writeFileSync(file, await zip.generateAsync({ type: 'nodebuffer' }));
  return file;
}

describe('importReadThrough on an offload thread', () => {
  it('counts the images, names every class, and hands back the report lines', async () => {
    const file = await zipFile('yolo.zip', {
      'data.yaml': 'names:\n  - Car\n  - tree\n',
      'images/a.png': 'x',
      'labels/a.txt': '0 0.5 0.5 0.2 0.2\n7 0.5 0.5 0.1 0.1\n',
      'images/b.png': 'x',
    });
    const tmp = fs.mkdtempSync(path.join(dir, 'tmp-'));
    const found = await offload('importReadThrough', [file, 'yolo.zip', 'yolo', '/', tmp]);
    expect(found).toEqual({
      images: 2,
      classKeys: ['car', 'tree'],
      skipped: [{ file: 'labels/a.txt line 2', reason: 'class index 7 is not one of the 2 classes (0 to 1)' }],
      warnings: [],
      skippedMore: 0,
      warningsMore: 0,
    });
  });

  it('rejects with an ImportInputError naming the file for bad input, and checks folder names', async () => {
    const broken = await zipFile('cvat.zip', { 'annotations.xml': '<annotations>\n<image name="a.png" width="1" height="1">\n<box label="x">\n</image>\n</annotations>' });
    const err = (await offload('importReadThrough', [broken, 'cvat.zip', 'cvat', '/', fs.mkdtempSync(path.join(dir, 'tmp-'))]).catch((e: unknown) => e)) as Error;
    expect(err.name).toBe('ImportInputError');
    expect(err.message).toMatch(/^annotations\.xml: XML error at line 4: /);
    const folder = await zipFile('folder.zip', { 'data.yaml': 'names:\n  - car\n', [`images/${'f'.repeat(101)}/a.png`]: 'x' });
    const refused = (await offload('importReadThrough', [folder, 'folder.zip', 'yolo', '/', fs.mkdtempSync(path.join(dir, 'tmp-'))]).catch((e: unknown) => e)) as Error;
    expect(refused.name).toBe('ImportInputError');
    expect(refused.message).toMatch(/Folder name must be at most 100 characters/);
  });
});
