import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

const apiPort = Number(process.env.PORT ?? 3000);
const api = `http://localhost:${apiPort}`;

export default defineConfig({
  plugins: [react()],
  root: '.',
  build: { outDir: 'dist/app', emptyOutDir: true, sourcemap: true },
  worker: { format: 'es' },
  server: {
    port: 5173,
    proxy: { '/api': api, '/auth/v1': api, '/storage/v1': api },
  },
  test: {
    include: ['src/**/*.test.ts', 'tests/api/**/*.test.ts', 'tests/engine/**/*.test.ts', 'assembly/**/*.test.ts', 'tests/render/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
