// Vitest: unit tests beside the code (src, assembly, scripts), the API over HTTP (tests/api), the
// engine headless (tests/engine) and the renderer's pixels (tests/render). See tests/README.md.
import fs from 'node:fs';
import path from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

const include = ['src/**/*.test.ts', 'tests/api/**/*.test.ts', 'tests/engine/**/*.test.ts', 'assembly/**/*.test.ts', 'tests/render/**/*.test.ts', 'scripts/**/*.test.ts'];

// Files that need a module graph of their own: they replace modules or timers (vi.mock, fake
// timers, spies), or change globals or the environment for the whole file (a DOM, `window`, S3
// credentials), which the next file in the same worker would otherwise inherit. Found by reading
// the test files, so a new one is not forgotten; `alsoIsolated` is for what the pattern misses.
const needsIsolation = /\bvi\.(mock|doMock|useFakeTimers|stubGlobal|stubEnv|spyOn)\b|@vitest-environment|globalThis( as [^)]*\))?\)?\.\w+ *=[^=]|^process\.env\.\w+ *=[^=]/m;
const alsoIsolated: string[] = [];

function testFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const file = path.posix.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : testFiles(file);
    return e.name.endsWith('.test.ts') ? [file] : [];
  });
}

const isolated = [
  ...new Set([...['src', 'tests/api', 'tests/engine', 'assembly', 'tests/render', 'scripts'].flatMap(testFiles).filter((f) => needsIsolation.test(fs.readFileSync(f, 'utf8'))), ...alsoIsolated]),
];

// VELLUM_TEST_ISOLATE=1 gives every file a module graph of its own, as before: to tell a leak
// between files from a bug, or to compare the cost.
const shareModules = process.env.VELLUM_TEST_ISOLATE !== '1';

// Only the React plugin is taken from vite.config.ts: the rest is the SPA's build and dev server.
export default defineConfig({
  plugins: [react()],
  test: {
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One temporary directory per run, removed at its end (tests/support/vitest-tmpdir.ts).
    globalSetup: ['tests/support/vitest-tmpdir.ts'],
    // The API harness's shared server stopped at the end of an isolated file (tests/support/vitest-file-end.ts);
    // VITEST_CPU_LOG=<file>: a line per test file with its CPU and wall seconds (tests/README.md).
    setupFiles: ['tests/support/vitest-file-end.ts', ...(process.env.VITEST_CPU_LOG ? ['tests/support/vitest-cpu-log.ts'] : [])],
    // Vitest's default is one worker per core less one: a single worker on a 2-core machine. API
    // files spend much of their time waiting on their server, so two at a time finish sooner.
    // VITEST_WORKERS changes it, to compare (a run that leaves a core idle gains from a third).
    maxWorkers: Number(process.env.VITEST_WORKERS) || 2,
    projects: [
      // The rest share one module graph per worker: the server and its dependencies are loaded
      // once per worker instead of once per file (importing them was 107 s of the 377 s run).
      // VELLUM_FILE_ISOLATED tells a file's end that its module graph, so any shared server in it, is its own.
      { extends: true, test: { name: 'shared', include, exclude: [...configDefaults.exclude, ...isolated], isolate: !shareModules, env: shareModules ? {} : { VELLUM_FILE_ISOLATED: '1' } } },
      { extends: true, test: { name: 'isolated', include: isolated, env: { VELLUM_FILE_ISOLATED: '1' } } },
    ],
  },
});
