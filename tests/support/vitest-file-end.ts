// Vitest setup file (vitest.config.ts): in a file with a module graph of its own (the `isolated`
// project, or every file with VELLUM_TEST_ISOLATE=1; the config sets VELLUM_FILE_ISOLATED), the
// API harness's shared server is that file's alone, so it is stopped when the file ends.
import { afterAll } from 'vitest';
import { stopSharedServer } from './shared-server-end';

afterAll(async () => {
  if (process.env.VELLUM_FILE_ISOLATED === '1') await stopSharedServer();
});
