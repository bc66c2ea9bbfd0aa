// The zoom gesture's scaled frames next to the same camera at rest, as PNGs to look at (issue 35,
// src/workers/fused.ts): node --import tsx bench/render/gesture-shots.ts [scene] [outDir]
// (polygons10k; /tmp/vellum-shots) [--direct: drawn without the fused path, to compare] [--dpr=1,2] [--gestures=in,out] [--start=K: from K times the fit zoom]. 1440 x 900 at dpr 1 and 2; a zoom in (8 steps of 1.1x) and a zoom
// out (8 steps of 1 / 1.1) an animation frame apart; for the steps read back, `<name>-during.png`,
// `<name>-rest.png`, a 3x crop of the view's centre of each, and the share of pixels that differ
// (pixelmatch, threshold 0.1) printed.
import fs from 'node:fs';
import path from 'node:path';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import { launch, startServer } from '../../tests/render/harness';
import { renderPagePath } from '../lib/render-page';

const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const scene = positional[0] ?? 'polygons10k';
const outDir = positional[1] ?? '/tmp/vellum-shots';
const DIRECT = process.argv.includes('--direct');
const DPRS = (arg('dpr') ?? '1,2').split(',').map(Number);
const GESTURES = (arg('gestures') ?? 'in,out').split(',');
const START = Number(arg('start') ?? 1);
fs.mkdirSync(outDir, { recursive: true });

interface Shot { step: number; scale: number; during: string; scaled: boolean; atRest: string }
const decode = (url: string) => PNG.sync.read(Buffer.from(url.slice(url.indexOf(',') + 1), 'base64'));

/** A crop of `img` around its centre, `k` times enlarged by pixel repetition (to see texels and edges). */
function crop(img: PNG, w: number, h: number, k: number): PNG {
  const out = new PNG({ width: w * k, height: h * k });
  const x0 = Math.floor((img.width - w) / 2), y0 = Math.floor((img.height - h) / 2);
  for (let y = 0; y < h * k; y++) {
    for (let x = 0; x < w * k; x++) {
      const i = ((y0 + Math.floor(y / k)) * img.width + x0 + Math.floor(x / k)) * 4;
      img.data.copy(out.data, (y * w * k + x) * 4, i, i + 4);
    }
  }
  return out;
}

const { server, url } = await startServer();
const browser = await launch();
try {
  for (const dpr of DPRS) {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: dpr });
    page.on('console', (m) => { if (m.type() === 'error') console.error('page:', m.text()); });
    await page.goto(`${url}${renderPagePath}`);
    await page.waitForFunction(() => (window as unknown as { benchReady?: boolean }).benchReady, null, { timeout: 90_000 });
    for (const [name, factor] of ([['in', 1.1], ['out', 1 / 1.1]] as const).filter(([n]) => GESTURES.includes(n))) {
      const shots = await page.evaluate(([s, d, f, fused, k]) => (window as any).gestureShots(s, 1440, 900, d, Array(8).fill(f), [2, 5, 7], fused, k), [scene, dpr, factor, !DIRECT, START] as const) as Shot[];
      for (const s of shots) {
        const base = path.join(outDir, `${scene}${DIRECT ? '-direct' : ''}${START !== 1 ? `-x${START}` : ''}-dpr${dpr}-${name}-step${s.step}`);
        const a = decode(s.during), b = decode(s.atRest);
        const diff = pixelmatch(a.data, b.data, undefined, a.width, a.height, { threshold: 0.1 });
        fs.writeFileSync(`${base}-during.png`, PNG.sync.write(a));
        fs.writeFileSync(`${base}-rest.png`, PNG.sync.write(b));
        fs.writeFileSync(`${base}-during-crop.png`, PNG.sync.write(crop(a, 240 * dpr, 150 * dpr, Math.round(3 / dpr))));
        fs.writeFileSync(`${base}-rest-crop.png`, PNG.sync.write(crop(b, 240 * dpr, 150 * dpr, Math.round(3 / dpr))));
        console.log(`${path.basename(base)}: scale ${s.scale.toFixed(4)}, ${s.scaled ? 'scaled texture' : 'not scaled (drawn)'} during, ${((100 * diff) / (a.width * a.height)).toFixed(2)}% of pixels differ from the frame at rest`);
      }
    }
    await page.close();
  }
} finally {
  await browser.close();
  await server.close();
}
