// Wasm kernels for the browser and the render worker (the server loads them through ./node).
// The module is an asset Vite bundles and fingerprints from the `new URL(..., import.meta.url)`
// below; in Node use ./node instead (fetch cannot read file: URLs).
import { instantiateKernels, type Kernels } from './kernels';

export * from './kernels';

/** URL of the built module (assembly/build/kernels.wasm; `npm run build:wasm` makes it). */
export const kernelsWasmUrl = new URL('../../assembly/build/kernels.wasm', import.meta.url);

let cached: Promise<Kernels> | undefined;

/**
 * Fetches and instantiates the kernels (compiling while downloading when the server sends
 * application/wasm). The default URL is loaded once per realm (page or worker) and shared.
 */
export function loadKernels(url: URL | string = kernelsWasmUrl): Promise<Kernels> {
  if (url === kernelsWasmUrl) {
    cached ??= fetchKernels(url).catch((err: unknown) => {
      cached = undefined; // let a later call retry after a network error
      throw err;
    });
    return cached;
  }
  return fetchKernels(url);
}

async function fetchKernels(url: URL | string): Promise<Kernels> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`Cannot load wasm kernels from ${String(url)}: HTTP ${response.status}`);
  if (typeof WebAssembly.compileStreaming === 'function' && response.headers.get('content-type')?.startsWith('application/wasm')) {
    return instantiateKernels(await WebAssembly.compileStreaming(response));
  }
  return instantiateKernels(await response.arrayBuffer());
}
