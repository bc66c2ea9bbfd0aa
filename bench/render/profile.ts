// Where a Vellum frame's time goes: node --import tsx bench/render/profile.ts [scene] [steps] [reps]
// Runs bench/render/page's benchProfile (the Renderer with each draw pass switched off in turn,
// over the benchmark's camera path; an empty frame is clear + a 1 px readback).
// Scene 'gl': glCosts (raw WebGL: empty frame, 10k quads in 1 / 24 / 500 draws, a textured quad).
// Prints each pass's median and p95; 'cold' as 5th argument: frames in the benchmark's order, unwarmed.
// BENCH_FUSED=1: page/fused-profile.ts instead: the fused path's pan and zoom gesture against the image alone
// and the direct draw (and the pan with the texture sampled linearly, or the image's plain pass), interleaved,
// with each variant's CPU per frame (the browser's, and its GPU process's apart). BENCH_DETACH=1: the canvas is taken out of the page (its frames do not wait for compositing);
// BENCH_CHROMIUM_ARGS as for run.ts.
import { launch, startServer } from '../../tests/render/harness';
import { renderPagePath } from '../lib/render-page';
import { treeCpu } from '../lib/proc-cpu';

const scene = process.argv[2] ?? 'polygons10k';
const steps = Number(process.argv[3] ?? 10);
const reps = Number(process.argv[4] ?? 3);
const warm = process.argv[5] !== 'cold';
const { server, url } = await startServer();
const browser = await launch((process.env.BENCH_CHROMIUM_ARGS ?? '').split(' ').filter(Boolean));
try {
  const page = await browser.newPage({ viewport: { width: 800, height: 600 }, deviceScaleFactor: 1 });
  page.on('console', (m) => { if (m.type() === 'error') console.error('page:', m.text()); });
  await page.exposeFunction('cpuNow', () => treeCpu());
  const query = process.env.BENCH_DETACH ? 'detach' : '';
  await page.goto(`${url}${renderPagePath}${query ? `?${query}` : ''}`);
  await page.waitForFunction(() => (window as unknown as { benchReady?: boolean }).benchReady, null, { timeout: 90_000 });
  const w = (name: string, ...args: unknown[]) => page.evaluate(([n, a]) => (window as any)[n as string](...(a as unknown[])), [name, args] as const);
  const v = (scene === 'gl' ? await w('glCosts', steps * 2) : process.env.BENCH_FUSED ? await w('fusedProfile', scene, steps, reps) : await w('benchProfile', scene, steps, reps, warm)) as Record<string, unknown>;
  for (const [k, x] of Object.entries(v)) if (k !== 'stats') console.log(k, JSON.stringify(x));
} finally {
  await browser.close();
  await server.close();
}
