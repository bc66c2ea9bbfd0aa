// The built-in detector on real photographs (../shared/datasets/seg-dev, skipped when absent): TF.js
// on wasm in an offload thread, the weights read from node_modules. Each photograph's object must
// be found with its own class at IoU >= 0.5 (photographs the model gets right, IoU 0.88-0.94 when
// chosen: recall over all 160 is bench/models.bench.ts's job, about 71%); the suppression and the
// URL guard are checked alone.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { closeOffloadPool } from '../../offload/pool';
import { BUILTIN_CENTERNET } from './builtin';
import { detect } from './detect';
import { suppress } from './detect-thread';
import { checkOutgoingUrl, isPrivateAddress } from './url-guard';

const SEG_DEV = process.env.SEG_DEV_DIR ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../shared/datasets/seg-dev');
const present = fs.existsSync(path.join(SEG_DEV, 'images'));

afterAll(() => closeOffloadPool());

async function maskBox(file: string): Promise<[number, number, number, number]> {
  const { data, info } = await sharp(file).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  let [x0, y0, x1, y1] = [info.width, info.height, -1, -1];
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      if (data[y * info.width + x]! < 128) continue;
      x0 = Math.min(x0, x);
      y0 = Math.min(y0, y);
      x1 = Math.max(x1, x);
      y1 = Math.max(y1, y);
    }
  }
  return [x0, y0, x1 - x0 + 1, y1 - y0 + 1];
}

const iou = (a: number[], b: number[]) => {
  const w = Math.min(a[0]! + a[2]!, b[0]! + b[2]!) - Math.max(a[0]!, b[0]!);
  const h = Math.min(a[1]! + a[3]!, b[1]! + b[3]!) - Math.max(a[1]!, b[1]!);
  const inter = Math.max(0, w) * Math.max(0, h);
  return inter / (a[2]! * a[3]! + b[2]! * b[3]! - inter);
};

describe.skipIf(!present)('the built-in CenterNet on seg-dev photographs', () => {
  it.each([
    ['airplane05_000000005477', 'airplane'],
    ['dog05_000000072813', 'dog'],
    ['car00_000000098392', 'car'],
    ['horse00_000000281447', 'horse'],
  ])('%s: finds the %s', async (name, cls) => {
    const bytes = fs.readFileSync(path.join(SEG_DEV, 'images', `${name}.jpg`));
    const truth = await maskBox(path.join(SEG_DEV, 'masks', `${name}.png`));
    const found = await detect(BUILTIN_CENTERNET.spec(), bytes, { minScore: 0.2 });
    const best = Math.max(0, ...found.filter((d) => BUILTIN_CENTERNET.classes[d.classIndex] === cls).map((d) => iou(d.box, truth)));
    expect(best).toBeGreaterThanOrEqual(0.5);
    expect(found.length).toBeLessThanOrEqual(300);
  }, 120_000);
});

describe('suppression and the URL guard', () => {
  it('keeps the best of overlapping boxes of one class, and boxes of other classes', () => {
    const kept = suppress(
      [
        { classIndex: 0, score: 0.5, box: [0, 0, 10, 10] },
        { classIndex: 0, score: 0.9, box: [1, 1, 10, 10] },
        { classIndex: 1, score: 0.4, box: [1, 1, 10, 10] },
        { classIndex: 0, score: 0.3, box: [50, 50, 10, 10] },
      ],
      { minScore: 0, maxDetections: 10, iouThreshold: 0.5 },
    );
    expect(kept.map((k) => k.score)).toEqual([0.9, 0.4, 0.3]);
  });

  it('judges addresses and resolves names before calling', async () => {
    for (const a of ['127.0.0.1', '10.0.0.1', '172.20.1.1', '192.168.0.1', '169.254.169.254', '100.64.0.1', '::1', 'fe80::1', 'fd12::1', '::ffff:10.0.0.1', '0.0.0.0']) expect(isPrivateAddress(a), a).toBe(true);
    for (const a of ['93.184.215.14', '8.8.8.8', '2606:4700::1111']) expect(isPrivateAddress(a), a).toBe(false);
    const lookup = async () => ['10.0.0.5'];
    await expect(checkOutgoingUrl('https://models.internal.example/p', { allowPrivate: false, lookup })).rejects.toThrow(/private/);
    await expect(checkOutgoingUrl('https://models.example/p', { allowPrivate: false, lookup: async () => ['93.184.215.14'] })).resolves.toBeInstanceOf(URL);
    await expect(checkOutgoingUrl('https://models.internal.example/p', { allowPrivate: true, lookup })).resolves.toBeInstanceOf(URL);
  });
});
