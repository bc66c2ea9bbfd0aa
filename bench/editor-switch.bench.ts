// `node --import tsx bench/editor-switch.bench.ts [--runs=<n>] [--quick]` (after `npm run build`):
// going to the next image in the editor (issue 19). Headless Chromium against the real server
// serving dist/app; a project of photographs (seg-dev's, as they are: ~640 x 480) and one of the
// same photographs scaled to 12 MP (4000 x 3000 JPEG). Each run opens the first image of a project,
// then presses '.' (next image) STEPS times, waiting SETTLE_MS before each press so the neighbours
// are prefetched (pixels, annotations and, in place, the renderer's textures), and times the key
// press (a capture listener on window) to the first frame with the new image (the time the
// renderer drew it, which the render client's 'vellum:image-frame' event carries). Both paths in the same run,
// alternating: in place (the editor stays, the worker swaps its image) and the baseline, the editor
// rebuilt for every image as before issue 19 (localStorage vellum.bench.editorRemount=1: a fetch
// behind 'Loading image...', then a new screen, renderer, worker and WebGL context; the same
// prefetch cache of pixels and annotations). Prints a table and writes
// bench/results/editor-switch.json with the load average before and after each scenario.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import sharp from 'sharp';
import { api, onboardedUser, startServer, tempDir, type TestServer } from '../tests/api/harness';
import { chromiumPath, signInThroughPage } from './lib/browser';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const quick = process.argv.includes('--quick');
const RUNS = Number(process.argv.find((a) => a.startsWith('--runs='))?.slice('--runs='.length) ?? (quick ? 1 : 2));
const STEPS = quick ? 3 : 5;
const APP_DIR = path.join(root, 'dist/app');
const PHOTOS = path.resolve(root, '../shared/datasets/seg-dev/images');
const REMOUNT_FLAG = 'vellum.bench.editorRemount';

interface Scenario {
  name: string;
  project: string;
  /** Long side of the images, null: as they are. */
  size: [number, number] | null;
  settleMs: number;
}
const SCENARIOS: Scenario[] = [
  { name: 'small (photos ~640 x 480)', project: 'Switch small', size: null, settleMs: 1500 },
  { name: '12 MP (4000 x 3000 JPEG)', project: 'Switch 12MP', size: [4000, 3000], settleMs: 5000 },
];
const MODES = ['in place', 'remount (before)'] as const;
type Mode = (typeof MODES)[number];

async function imagesFor(s: Scenario): Promise<{ name: string; jpeg: Buffer; width: number; height: number }[]> {
  const files = fs.readdirSync(PHOTOS).filter((f) => f.endsWith('.jpg')).slice(0, STEPS + 1);
  return Promise.all(
    files.map(async (f, i) => {
      const img = sharp(path.join(PHOTOS, f));
      const out = s.size ? img.resize(s.size[0], s.size[1], { fit: 'fill' }).jpeg({ quality: 85 }) : img.jpeg({ quality: 90 });
      const { data, info } = await out.toBuffer({ resolveWithObject: true });
      return { name: `switch_${i}.jpg`, jpeg: data, width: info.width, height: info.height };
    }),
  );
}

async function seed(server: TestServer, user: Awaited<ReturnType<typeof onboardedUser>>, s: Scenario): Promise<string[]> {
  const created = await api(server.url, 'POST', '/api/v1/projects', { token: user.token, body: { organization_id: user.org.id, name: s.project, classes: [{ name: 'car', type: 'box', color: '#F07575' }] } });
  if (created.status !== 200) throw new Error(`create project: ${created.status} ${JSON.stringify(created.body)}`);
  const projectId = created.body.project.id as string;
  const q = `?org_id=${user.org.id}`;
  const names: string[] = [];
  for (const im of await imagesFor(s)) {
    const urls = await api(server.url, 'POST', `/api/v1/projects/${projectId}/images/batch-upload-urls${q}`, { token: user.token, body: { files: [{ filename: im.name, content_type: 'image/jpeg', folder_path: '/' }] } });
    if (urls.status !== 200) throw new Error(`upload URL: ${urls.status} ${JSON.stringify(urls.body)}`);
    const u = urls.body.urls[0];
    const put = await fetch(u.upload_url, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: new Uint8Array(im.jpeg) });
    if (!put.ok) throw new Error(`upload: ${put.status}`);
    const reg = await api(server.url, 'POST', `/api/v1/projects/${projectId}/images/register${q}`, {
      token: user.token,
      body: { filename: u.filename, gcs_bucket: u.gcs_bucket, gcs_path: u.gcs_path, gcs_uri: u.gcs_uri, folder_path: '/', file_size: im.jpeg.length, mime_type: 'image/jpeg', width: im.width, height: im.height },
    });
    if (reg.status !== 200) throw new Error(`register: ${reg.status} ${JSON.stringify(reg.body)}`);
    names.push(u.filename as string);
    // Distinct upload times: the Data tab's order (newest first) is the sequence's.
    await new Promise((r) => setTimeout(r, 20));
  }
  return names;
}

/** Signs in through the page; the browser state to start runs from. */
async function signIn(browser: Browser, server: TestServer, user: Awaited<ReturnType<typeof onboardedUser>>) {
  const { context, page } = await signInThroughPage(browser, server.url, user);
  await page.getByRole('heading', { name: 'Your Projects' }).or(page.getByRole('button', { name: /^Open project / }).first()).first().waitFor();
  const state = await context.storageState();
  await context.close();
  return state;
}

interface Switch {
  ms: number;
  /** 'Loading image...' was on the page at some point between the key press and the frame. */
  loadingShown: boolean;
}

async function run(browser: Browser, server: TestServer, state: Awaited<ReturnType<BrowserContext['storageState']>>, s: Scenario, first: string, mode: Mode): Promise<Switch[]> {
  const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1440, height: 900 }, storageState: state });
  try {
    const page = await context.newPage();
    await page.addInitScript(
      ({ flag, on }) => {
        if (on) localStorage.setItem(flag, '1');
        else localStorage.removeItem(flag);
        const w = window as unknown as { __press: number[]; __frames: number[]; __loading: boolean };
        w.__press = [];
        w.__frames = [];
        w.__loading = false;
        window.addEventListener('keydown', (e) => e.key === '.' && w.__press.push(performance.now()), { capture: true });
        // detail.at: when the renderer drew the frame (the worker's clock, in this page's time).
        document.addEventListener('vellum:image-frame', (e) => w.__frames.push((e as CustomEvent<{ at: number }>).detail.at), { capture: true });
        new MutationObserver(() => {
          if (!w.__loading && document.body?.textContent?.includes('Loading image...')) w.__loading = true;
        }).observe(document, { childList: true, subtree: true, characterData: true });
      },
      { flag: REMOUNT_FLAG, on: mode !== 'in place' },
    );
    await page.goto('/select');
    await page.getByRole('button', { name: `Open project ${s.project}` }).click();
    await page.getByRole('heading', { name: 'Manage Dataset' }).waitFor();
    await page.goto(`/project/annotate/${encodeURIComponent(first)}`);
    await page.waitForFunction(() => (window as unknown as { __frames: number[] }).__frames.length >= 1 && !document.body.textContent?.includes('Loading image...'), undefined, { timeout: 120_000 });
    const out: Switch[] = [];
    for (let i = 0; i < STEPS; i++) {
      await page.waitForTimeout(s.settleMs);
      const n = await page.evaluate(() => {
        const w = window as unknown as { __frames: number[]; __loading: boolean };
        w.__loading = false;
        return w.__frames.length;
      });
      if (!(await page.getByRole('button', { name: 'Next image (.)' }).isEnabled())) throw new Error(`no next image after ${i} steps`);
      await page.keyboard.press('.');
      await page.waitForFunction((k) => (window as unknown as { __frames: number[] }).__frames.length > k, n, { timeout: 60_000, polling: 50 });
      const r = await page.evaluate((k) => {
        const w = window as unknown as { __press: number[]; __frames: number[]; __loading: boolean };
        return { ms: w.__frames[k]! - w.__press[w.__press.length - 1]!, loadingShown: w.__loading };
      }, n);
      out.push(r);
    }
    return out;
  } finally {
    await context.close();
  }
}

const median = (xs: number[]) => {
  const v = [...xs].sort((a, b) => a - b);
  return v.length % 2 ? v[(v.length - 1) / 2]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2;
};
const load = () => os.loadavg().map((l) => +l.toFixed(2));

async function main() {
  if (!fs.existsSync(path.join(APP_DIR, 'index.html'))) {
    console.error('editor-switch: no build in dist/app. Run `npm run build` first.');
    process.exit(1);
  }
  const server = await startServer({ APP_DIR }, tempDir('vellum-bench-switch-'));
  const browser = await chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
  const results: { scenario: string; mode: Mode; switches: Switch[]; loadavg: { start: number[]; end: number[] } }[] = [];
  try {
    const user = await onboardedUser(server);
    const firsts = new Map<Scenario, string>();
    for (const s of SCENARIOS) {
      const names = await seed(server, user, s);
      firsts.set(s, names[names.length - 1]!); // the newest: first in the Data tab's order
    }
    const state = await signIn(browser, server, user);
    for (const s of SCENARIOS) {
      for (let r = 0; r < RUNS; r++) {
        for (const mode of r % 2 ? [...MODES].reverse() : MODES) {
          const start = load();
          const switches = await run(browser, server, state, s, firsts.get(s)!, mode);
          const end = load();
          const entry = results.find((e) => e.scenario === s.name && e.mode === mode);
          if (entry) {
            entry.switches.push(...switches);
            entry.loadavg.end = end;
          } else results.push({ scenario: s.name, mode, switches, loadavg: { start, end } });
          console.log(`${s.name}, ${mode}: ${switches.map((x) => Math.round(x.ms)).join(', ')} ms (load ${start[0]} -> ${end[0]})`);
        }
      }
    }
  } finally {
    await browser.close();
    await server.stop();
  }

  const rows = results.map((e) => {
    const ms = e.switches.map((x) => x.ms);
    const base = results.find((b) => b.scenario === e.scenario && b.mode === 'remount (before)')!;
    return {
      scenario: e.scenario,
      mode: e.mode,
      median_ms: Math.round(median(ms)),
      min_ms: Math.round(Math.min(...ms)),
      max_ms: Math.round(Math.max(...ms)),
      vs_baseline: +(median(ms) / median(base.switches.map((x) => x.ms))).toFixed(3),
      loading_shown: e.switches.filter((x) => x.loadingShown).length,
      switches: ms.length,
      loadavg: e.loadavg,
    };
  });
  console.log(`\nEditor switch: key press to the next image's first frame, prefetched neighbours, ${os.cpus().length} CPUs, Chromium headless (software WebGL)\n`);
  console.log('| images | path | ms, median (min-max) | vs before | \'Loading image...\' shown | switches | load average (1 min) start -> end |');
  console.log('|---|---|---:|---:|---:|---:|---|');
  for (const r of rows) console.log(`| ${r.scenario} | ${r.mode} | ${r.median_ms} (${r.min_ms}-${r.max_ms}) | ${r.vs_baseline.toFixed(2)}x | ${r.loading_shown} of ${r.switches} | ${r.switches} | ${r.loadavg.start[0]} -> ${r.loadavg.end[0]} |`);
  const outFile = path.join(here, 'results', 'editor-switch.json');
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  fs.writeFileSync(outFile, `${JSON.stringify({ benchmark: 'editor-switch', date: new Date().toISOString(), node: process.version, chromium: chromiumPath() ?? 'playwright', cpus: os.cpus().length, runs: RUNS, steps: STEPS, results: rows, raw: results }, null, 2)}\n`);
  console.log(`\nwrote ${path.relative(process.cwd(), outFile)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
