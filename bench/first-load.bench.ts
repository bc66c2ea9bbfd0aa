// `npm run bench -- --only=first-load [--runs=<n>] [--quick]`: what a first visit costs (issue 16).
// The sign-in page, the projects page and the editor, each opened cold (a new browser context, so
// an empty cache) in headless Chromium against the real server serving the built app (dist/app:
// run `npm run build` first): the JS and CSS bytes transferred as served (compressed; the encoding
// is reported), the number of requests, and the time from navigation to the first frame where the
// page's known element is on screen (the sign-in heading, a project card, the editor's canvas with
// its image drawn), over loopback and over an emulated 10 Mbit/s link with 40 ms of latency (the
// page's requests; its worker's are not slowed). The baseline, in the same run: the same source
// built into one chunk (VELLUM_SINGLE_CHUNK=1, as the app was built before the split) into a
// directory of its own, precompressed as `npm run build` does, served by a second server. Runs
// alternate between the two. Prints a table and writes bench/results/first-load.json; the load
// average goes with it (other work on the machine slows the times, not the bytes).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import sharp from 'sharp';
import { api, onboardedUser, startServer, tempDir, type TestServer } from '../tests/api/harness';
import { chromiumPath, signInThroughPage } from './lib/browser';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const quick = process.argv.includes('--quick');
const RUNS = Number(process.argv.find((a) => a.startsWith('--runs='))?.slice('--runs='.length) ?? (quick ? 3 : 5));
const APP_DIR = path.join(root, 'dist/app');
const PROJECT = 'Bench project';
const IMAGE = 'bench-street.png';

type PageName = 'sign-in' | 'projects' | 'editor';
const PAGES: PageName[] = ['sign-in', 'projects', 'editor'];
/** Loopback, where bytes cost almost nothing, and a modest connection (the page's own requests; Chromium's emulation). */
const NETWORKS = [
  { name: 'loopback', conditions: null },
  { name: '10 Mbit/s, 40 ms', conditions: { offline: false, latency: 40, downloadThroughput: 10e6 / 8, uploadThroughput: 5e6 / 8 } },
] as const;
type Network = (typeof NETWORKS)[number];

interface Build {
  name: string;
  dir: string;
  server?: TestServer;
  state?: Awaited<ReturnType<BrowserContext['storageState']>>;
}

interface Visit {
  jsBytes: number;
  cssBytes: number;
  /** The same JS and CSS as their .gz copies in the build (the size the target is set in), whatever was served. */
  gzipBytes: number;
  jsCssRequests: number;
  requests: number;
  encodings: string[];
  renderMs: number;
}

/** The single-chunk baseline: `vite build` with VELLUM_SINGLE_CHUNK=1 into `dir`, then its .br/.gz copies. */
function buildBaseline(dir: string): string | null {
  const vite = spawnSync(process.execPath, [path.join(root, 'node_modules/vite/bin/vite.js'), 'build', '--outDir', dir, '--emptyOutDir', '--logLevel', 'warn'], {
    cwd: root,
    env: { ...process.env, VELLUM_SINGLE_CHUNK: '1' },
    encoding: 'utf8',
  });
  if (vite.status !== 0) return `vite build failed: ${(vite.stderr || vite.stdout).slice(-500)}`;
  const pre = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'src/server/build-precompress.ts'), dir], { cwd: root, encoding: 'utf8' });
  if (pre.status !== 0) return `precompress failed: ${(pre.stderr || pre.stdout).slice(-500)}`;
  return null;
}

/** JS and CSS files of a build with their sizes: plain, and the .gz / .br copies the server answers with. */
function chunks(dir: string) {
  const assets = path.join(dir, 'assets');
  const size = (f: string) => (fs.existsSync(f) ? fs.statSync(f).size : null);
  return fs
    .readdirSync(assets)
    .filter((f) => /\.(js|css)$/.test(f))
    .map((f) => ({ file: f, bytes: size(path.join(assets, f))!, gz: size(path.join(assets, `${f}.gz`)), br: size(path.join(assets, `${f}.br`)) }))
    .sort((a, b) => b.bytes - a.bytes);
}

/** A user with a project holding one image, signed in through the page; the browser state to start visits from. */
async function prepare(browser: Browser, build: Build) {
  const server = (build.server = await startServer({ APP_DIR: build.dir }, tempDir('vellum-bench-first-load-')));
  const user = await onboardedUser(server);
  const created = await api(server.url, 'POST', '/api/v1/projects', { token: user.token, body: { organization_id: user.org.id, name: PROJECT, classes: [{ name: 'car', type: 'box', color: '#F07575' }] } });
  if (created.status !== 200) throw new Error(`create project: ${created.status} ${JSON.stringify(created.body)}`);
  const projectId = created.body.project.id as string;
  const png = await sharp({ create: { width: 1600, height: 1200, channels: 3, background: { r: 170, g: 190, b: 210 } } })
    .composite([{ input: await sharp({ create: { width: 500, height: 400, channels: 3, background: { r: 60, g: 90, b: 120 } } }).png().toBuffer(), left: 500, top: 400 }])
    .png()
    .toBuffer();
  const q = `?org_id=${user.org.id}`;
  const urls = await api(server.url, 'POST', `/api/v1/projects/${projectId}/images/batch-upload-urls${q}`, { token: user.token, body: { files: [{ filename: IMAGE, content_type: 'image/png', folder_path: '/' }] } });
  if (urls.status !== 200) throw new Error(`upload URL: ${urls.status} ${JSON.stringify(urls.body)}`);
  const u = urls.body.urls[0];
  const put = await fetch(u.upload_url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: png });
  if (!put.ok) throw new Error(`upload: ${put.status}`);
  const reg = await api(server.url, 'POST', `/api/v1/projects/${projectId}/images/register${q}`, {
    token: user.token,
    body: { filename: u.filename, gcs_bucket: u.gcs_bucket, gcs_path: u.gcs_path, gcs_uri: u.gcs_uri, folder_path: '/', file_size: png.length, mime_type: 'image/png', width: 1600, height: 1200 },
  });
  if (reg.status !== 200) throw new Error(`register: ${reg.status} ${JSON.stringify(reg.body)}`);

  const { context, page } = await signInThroughPage(browser, server.url, user);
  // Opening the project makes it the selected one (kept in localStorage), which the editor's route needs.
  await page.getByRole('button', { name: `Open project ${PROJECT}` }).click();
  await page.getByRole('heading', { name: 'Manage Dataset' }).waitFor();
  build.state = await context.storageState();
  await context.close();
}

async function visit(browser: Browser, build: Build, which: PageName, network: Network): Promise<Visit> {
  const context = await browser.newContext({ baseURL: build.server!.url, viewport: { width: 1440, height: 900 }, storageState: which === 'sign-in' ? undefined : build.state });
  const sizes: Promise<{ url: string; body: number; encoding: string } | null>[] = [];
  // The context sees the page's requests and its workers' (the render worker's script, the kernels).
  context.on('requestfinished', (request) => {
    sizes.push(
      (async () => {
        const [s, response] = await Promise.all([request.sizes(), request.response()]);
        return { url: request.url(), body: s.responseBodySize, encoding: (await response?.headerValue('content-encoding')) ?? 'identity' };
      })().catch(() => null),
    );
  });
  try {
    const page: Page = await context.newPage();
    if (network.conditions) await (await context.newCDPSession(page)).send('Network.emulateNetworkConditions', network.conditions);
    const url = which === 'sign-in' ? '/' : which === 'projects' ? '/select' : `/project/annotate/${IMAGE}`;
    await page.goto(url, { waitUntil: 'commit' });
    // The first frame where the page's known element is on screen (no helpers inside: the
    // function's source is what runs in the page).
    const handle = await page.waitForFunction(
      (name) => {
        const el =
          name === 'sign-in'
            ? [...document.querySelectorAll('h1')].find((h) => h.textContent === 'Welcome Back')
            : name === 'projects'
              ? document.querySelector('button[aria-label="Open project Bench project"]')
              : !document.body.textContent?.includes('Loading image...') && document.querySelector('[data-testid="editor-canvas"]');
        return el && el.getBoundingClientRect().height > 0 ? performance.now() : false;
      },
      which,
      { polling: 'raf', timeout: 60_000 },
    );
    const renderMs = (await handle.jsonValue()) as number;
    // What the page goes on to fetch once shown (the editor: its worker, kernels, image) counts too.
    await page.waitForLoadState('networkidle');
    const done = (await Promise.all(sizes)).filter((s): s is NonNullable<typeof s> => s !== null);
    const pathOf = (u: string) => new URL(u).pathname;
    const js = done.filter((s) => /\.(m?js)$/.test(pathOf(s.url)));
    const css = done.filter((s) => pathOf(s.url).endsWith('.css'));
    const gzipSize = (u: string) => {
      const file = path.join(build.dir, pathOf(u));
      return fs.existsSync(`${file}.gz`) ? fs.statSync(`${file}.gz`).size : fs.existsSync(file) ? fs.statSync(file).size : 0;
    };
    return {
      jsBytes: js.reduce((n, s) => n + s.body, 0),
      gzipBytes: [...js, ...css].reduce((n, s) => n + gzipSize(s.url), 0),
      cssBytes: css.reduce((n, s) => n + s.body, 0),
      jsCssRequests: js.length + css.length,
      requests: done.length,
      encodings: [...new Set([...js, ...css].map((s) => s.encoding))],
      renderMs,
    };
  } finally {
    await context.close();
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const kb = (n: number) => (n / 1024).toFixed(1);

async function main() {
  if (!fs.existsSync(path.join(APP_DIR, 'index.html'))) {
    console.error('first-load: no build in dist/app. Run `npm run build` first.');
    process.exit(1);
  }
  const loadStart = os.loadavg();
  const builds: Build[] = [{ name: 'split (dist/app)', dir: APP_DIR }];
  const baselineDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vellum-single-chunk-'));
  console.log('building the single-chunk baseline...');
  const baselineError = buildBaseline(baselineDir);
  if (baselineError) console.log(`no baseline: ${baselineError}`);
  else builds.unshift({ name: 'single chunk (baseline)', dir: baselineDir });

  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const visits = new Map<string, Visit[]>();
  try {
    for (const build of builds) await prepare(browser, build);
    // One untimed visit each to warm the servers (first answers compile routes, read files).
    for (const build of builds) for (const which of PAGES) await visit(browser, build, which, NETWORKS[0]);
    for (let run = 0; run < RUNS; run++) {
      for (const network of NETWORKS) {
        for (const which of PAGES) {
          for (const build of run % 2 ? [...builds].reverse() : builds) {
            const key = `${network.name}|${which}|${build.name}`;
            if (!visits.has(key)) visits.set(key, []);
            visits.get(key)!.push(await visit(browser, build, which, network));
          }
        }
      }
    }
  } finally {
    await browser.close();
    for (const build of builds) await build.server?.stop();
  }
  const loadEnd = os.loadavg();

  const rows = NETWORKS.flatMap((network) =>
    PAGES.flatMap((which) =>
      builds.map((build) => {
        const v = visits.get(`${network.name}|${which}|${build.name}`)!;
        const times = v.map((x) => x.renderMs);
        return {
          network: network.name,
          page: which,
          build: build.name,
          js_kb: +kb(median(v.map((x) => x.jsBytes))),
          css_kb: +kb(median(v.map((x) => x.cssBytes))),
          js_css_gzip_kb: +kb(median(v.map((x) => x.gzipBytes))),
          js_css_requests: median(v.map((x) => x.jsCssRequests)),
          requests: median(v.map((x) => x.requests)),
          encodings: [...new Set(v.flatMap((x) => x.encodings))],
          render_ms_median: Math.round(median(times)),
          render_ms_min: Math.round(Math.min(...times)),
          render_ms_max: Math.round(Math.max(...times)),
          runs: v.length,
        };
      }),
    ),
  );
  const base = (network: string, which: string) => rows.find((r) => r.network === network && r.page === which && r.build.startsWith('single'));

  console.log(`\nFirst load: ${RUNS} cold visits per network, page and build, Chromium headless; load average ${loadStart.map((l) => l.toFixed(2)).join(' ')} at start, ${loadEnd.map((l) => l.toFixed(2)).join(' ')} at end (${os.cpus().length} CPUs)\n`);
  const table = [
    '| network | page | build | JS KB | CSS KB | JS+CSS vs baseline | JS+CSS KB as gzip | JS/CSS requests | all requests | first meaningful render ms, median (min-max) | vs baseline |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => {
      const b = base(r.network, r.page);
      const bytesRatio = b ? `${((r.js_kb + r.css_kb) / (b.js_kb + b.css_kb)).toFixed(2)}x` : '-';
      const timeRatio = b ? `${(r.render_ms_median / b.render_ms_median).toFixed(2)}x` : '-';
      return `| ${r.network} | ${r.page} | ${r.build} | ${r.js_kb.toFixed(1)} | ${r.css_kb.toFixed(1)} | ${bytesRatio} | ${r.js_css_gzip_kb.toFixed(1)} | ${r.js_css_requests} | ${r.requests} | ${r.render_ms_median} (${r.render_ms_min}-${r.render_ms_max}) | ${timeRatio} |`;
    }),
  ];
  console.log(table.join('\n'));
  console.log(`\nbytes: response bodies as served (content-encoding: ${[...new Set(rows.flatMap((r) => r.encodings))].join(', ')}), medians; 'as gzip': the same files' .gz copies; requests include the API, fonts and images; KB = 1024 bytes.`);

  const files = Object.fromEntries(builds.map((b) => [b.name, chunks(b.dir)]));
  for (const [name, list] of Object.entries(files)) {
    console.log(`\n${name}: JS and CSS files (KB: plain / gzip / br)`);
    for (const c of list) console.log(`  ${c.file.padEnd(40)} ${kb(c.bytes).padStart(8)} ${(c.gz === null ? '-' : kb(c.gz)).padStart(8)} ${(c.br === null ? '-' : kb(c.br)).padStart(8)}`);
  }

  const outFile = path.join(here, 'results', 'first-load.json');
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  const out = {
    benchmark: 'first-load',
    date: new Date().toISOString(),
    node: process.version,
    chromium: chromiumPath() ?? 'playwright',
    cpus: os.cpus().length,
    loadavg: { start: loadStart.map((l) => +l.toFixed(2)), end: loadEnd.map((l) => +l.toFixed(2)) },
    runs: RUNS,
    baseline: baselineError ? { error: baselineError } : 'single chunk: the same source built with VELLUM_SINGLE_CHUNK=1',
    results: rows,
    files,
    raw: Object.fromEntries(visits),
  };
  fs.writeFileSync(outFile, `${JSON.stringify(out, null, 2)}\n`);
  console.log(`\nwrote ${path.relative(process.cwd(), outFile)}`);
  fs.rmSync(baselineDir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
