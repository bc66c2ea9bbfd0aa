// End-to-end tests: real Chromium against the real server (`src/server/main.ts`, as `npm start`
// runs it after the build, started by tests/support/e2e-server.ts on a copy of the migrated
// database) on a free port with a fresh DATA_DIR.
// `npm run test:e2e` builds the SPA first.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { defineConfig } from '@playwright/test';
import { makeRunDir } from './tests/support/test-tmp';
import { joinWorkerCgroup } from './tests/support/cpu-reporter';

function freePort(): number {
  const script = "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})";
  return Number(execFileSync(process.execPath, ['-e', script]).toString().trim());
}

// Worker processes load this file again; the environment carries the runner's choices to them.
const inRunner = !process.env.VELLUM_E2E_PORT;
// With E2E_CPU_CGROUP (tests/support/cpu-reporter.ts) each worker, and the Chromium it launches, is counted apart.
if (!inRunner) joinWorkerCgroup();
process.env.VELLUM_E2E_PORT ??= String(freePort());
if (!process.env.VELLUM_E2E_DATA_DIR) {
  // Made by the runner, removed when it exits (after the server has stopped): each run's data
  // directory is a few hundred MB, and runs all day filled the disk. It is in memory when there is
  // room (tests/support/test-tmp.ts), as are Chromium's profiles (TMPDIR, which the workers and
  // the server inherit): the server's database writes cost less CPU there.
  const runDir = makeRunDir();
  const dataDir = path.join(runDir, 'data');
  process.env.VELLUM_E2E_DATA_DIR = dataDir;
  process.env.TMPDIR = runDir;
  process.on('exit', () => fs.rmSync(runDir, { recursive: true, force: true }));
}
const port = process.env.VELLUM_E2E_PORT;
const baseURL = `http://127.0.0.1:${port}`;

// Chromium's headless shell (Debian's chromium-headless-shell, the build Playwright itself uses
// for headless runs) when present: the full browser in headless mode spent 3.4 s of CPU on a
// test's fixed part (a context, the sign-in page, an API sign-up, the app signed in) where the
// shell spends 1.2 s (tests/README.md, "Where the time goes"). E2E_CHROMIUM_PATH picks another
// (the full one for `--headed`), else CHROMIUM_PATH, else /usr/bin/chromium.
const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell';
const chromium =
  process.env.E2E_CHROMIUM_PATH ||
  (fs.existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : undefined) ||
  process.env.CHROMIUM_PATH ||
  (fs.existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined);
if (inRunner) console.log(`e2e browser: ${chromium ?? "Playwright's own Chromium"}`);

export default defineConfig({
  testDir: 'tests/e2e',
  // Two tests at a time share the one server (each test signs up its own people): on 2 cores the
  // suite took 6.6 min instead of 9.1. E2E_WORKERS=1 runs them one by one.
  workers: Number(process.env.E2E_WORKERS ?? 2),
  // Tests, not files, are handed out to the workers (no test depends on another or on a hook of
  // its file): with whole files, a long file handed out last (team, editor-scale: 1-2 minutes)
  // kept one worker busy while the other sat idle at the end of the run.
  fullyParallel: true,
  forbidOnly: Boolean(process.env.CI),
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  outputDir: 'test-results',
  use: {
    baseURL,
    browserName: 'chromium',
    viewport: { width: 1440, height: 900 },
    launchOptions: {
      executablePath: chromium,
      // E2E_CHROMIUM_ARGS adds flags (space-separated), to compare what they cost.
      args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', ...(process.env.E2E_CHROMIUM_ARGS?.split(' ').filter(Boolean) ?? [])],
    },
    // A trace (screencast and DOM snapshots of every action) cost 40% more CPU on every test
    // (data-tab.spec: 88 s of CPU with it, 52-56 s without), so it is recorded only when a failed
    // test is run again: CI retries once; locally, `npx playwright test <spec> --trace on`.
    trace: 'on-first-retry',
    // No screenshot on failure: to have one for a test that might fail, Playwright screenshots
    // every page of every context as it closes, and throws the pictures away when the test
    // passes: 0.56 s of CPU per context closed (0.62 -> 0.06, tests/README.md "Where the time
    // goes", session 25), in every test. A failed test still writes error-context.md (the
    // page's accessibility snapshot), and CI's retry records the trace, which has screenshots.
    screenshot: 'off',
  },
  webServer: {
    // E2E_SERVER_PROFILE=<dir>: a CPU profile of the server over the run, written to <dir> when it stops.
    command: `node ${process.env.E2E_SERVER_PROFILE ? `--cpu-prof --cpu-prof-dir=${process.env.E2E_SERVER_PROFILE} ` : ''}--import tsx tests/support/e2e-server.ts`,
    // Asked to stop (SIGTERM: in-flight requests end, the database closes) when profiling, so the profile is written; else killed.
    ...(process.env.E2E_SERVER_PROFILE ? { gracefulShutdown: { signal: 'SIGTERM' as const, timeout: 20_000 } } : {}),
    url: `${baseURL}/api/v1/health`,
    timeout: 180_000,
    reuseExistingServer: false,
    stdout: 'ignore',
    stderr: 'pipe',
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: process.env.VELLUM_E2E_DATA_DIR,
      PUBLIC_URL: baseURL,
      LOG_LEVEL: 'warn',
      // Every test signs its people up from 127.0.0.1: the suite makes more than the 100 an hour one address may.
      SIGN_UPS_PER_HOUR: '10000',
    },
  },
});
