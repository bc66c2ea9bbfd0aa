import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const apiPort = Number(process.env.PORT ?? 3000);
const api = `http://localhost:${apiPort}`;
// VELLUM_SINGLE_CHUNK=1: the whole app in one chunk, as it was built before issue 16 (the baseline
// of bench/first-load.bench.ts, which builds it into a directory of its own).
const singleChunk = process.env.VELLUM_SINGLE_CHUNK === '1';

export default defineConfig({
  plugins: [react()],
  root: '.',
  build: {
    outDir: 'dist/app',
    emptyOutDir: true,
    sourcemap: true,
    rolldownOptions: {
      // The engine's modules do nothing when loaded but define things (their two immer plugin
      // switches run with the modules that need them), so the sign-in and project pages, which
      // use only its nextTask, do not carry the whole engine: the editor's chunk does.
      treeshake: { moduleSideEffects: [{ test: /\/src\/engine\//, sideEffects: false }] },
      output: singleChunk ? { codeSplitting: { groups: [{ name: 'index', test: /./ }] } } : {
        // zod-config.ts switches zod to jitless before any schema is built (building one with jit
        // on asks, with an eval, whether it may compile: a CSP violation). Modules in a shared
        // chunk run before the entry's own, so the switch goes where zod is: first in line.
        codeSplitting: { groups: [{ name: 'zod', test: /node_modules[\\/]zod[\\/]|src[\\/]app[\\/]zod-config\.ts$/ }] },
      },
    },
  },
  worker: { format: 'es' },
  server: {
    port: 5173,
    // The live co-editing socket needs its upgrade proxied (ws); it is listed before /api so it matches first.
    proxy: { '/api/v1/live': { target: api, ws: true }, '/api': api, '/auth/v1': api, '/storage/v1': api },
  },
});
