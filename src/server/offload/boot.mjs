// Entry of every offload worker thread. Node 20 does not apply `--import tsx` from a worker's
// execArgv to the worker's own entry module, so this plain module registers tsx itself and then
// loads the TypeScript entry (`worker.ts`). Works under `npm start` (node --import tsx) and vitest.
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
await import(workerData.entry);
