// The e2e suite's server (playwright.config.ts `webServer`): `src/server/main.ts`, as `npm start`
// runs it, on a DATA_DIR whose database starts as a copy of the migrated template
// (`pglite-template.ts`) rather than a new one: initdb and the migrations cost the server about
// 9 s of CPU at every run's start, the copy 0.1 s.
import fs from 'node:fs';
import { loadConfig } from '../../src/server/config';
import { copyMigratedDatabase, TEST_SHARED_BUFFERS_MB } from './pglite-template';
import { usePasswordCostForTests } from '../../src/server/auth/embedded/checks';
import { joinCpuCgroup } from './cpu-reporter';

// With E2E_CPU_CGROUP the server's CPU is counted apart from the workers' (cpu-reporter.ts).
joinCpuCgroup('server');

// The test servers' small PGlite buffer pool: a start zeroes it (pglite-template.ts).
process.env.PGLITE_SHARED_BUFFERS_MB = TEST_SHARED_BUFFERS_MB;
let database;
try {
  database = loadConfig().database;
} catch {
  // main.ts reads the configuration again and reports what is wrong with it.
}
if (database?.kind === 'pglite' && !fs.existsSync(database.dir)) await copyMigratedDatabase(database.dir);
// Passwords at the tests' hash cost (docs/security.md): the same process runs main.ts below.
usePasswordCostForTests();
await import('../../src/server/main');
