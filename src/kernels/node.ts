// Wasm kernels in Node (server jobs, tests, benchmarks): reads assembly/build/kernels.wasm from
// disk. Build it first with `npm run build:wasm` (test:unit, build and bench do).
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { instantiateKernels, instantiateKernelsSync, type Kernels } from './kernels';
import { kernelsWasmUrl } from './index';

export * from './kernels';
export { kernelsWasmUrl };

export const kernelsWasmPath = fileURLToPath(kernelsWasmUrl);

function missing(err: unknown, path: string): Error {
  if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
    return new Error(`${path} not found: run \`npm run build:wasm\` first`);
  }
  return err as Error;
}

let cached: Promise<Kernels> | undefined;

/** Loads the kernels from disk (the default path once per process). */
export function loadKernelsNode(path: string = kernelsWasmPath): Promise<Kernels> {
  const load = async () => {
    const bytes = await readFile(path).catch((err: unknown) => {
      throw missing(err, path);
    });
    return instantiateKernels(bytes);
  };
  if (path !== kernelsWasmPath) return load();
  cached ??= load().catch((err: unknown) => {
    cached = undefined;
    throw err;
  });
  return cached;
}

/** Synchronous load, a fresh instance per call. */
export function loadKernelsNodeSync(path: string = kernelsWasmPath): Kernels {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw missing(err, path);
  }
  return instantiateKernelsSync(bytes);
}
