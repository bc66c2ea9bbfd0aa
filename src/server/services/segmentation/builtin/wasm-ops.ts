// SegmentOps on the wasm kernels (one instance per process; calls are synchronous and short).
import { readFile } from 'node:fs/promises';
import { kernelsWasmPath } from '../../../../kernels/node';
import { instantiateSegmentKernelsSync } from '../../../../kernels/segment';
import type { SegmentOps } from './algorithm';

export async function wasmOps(): Promise<SegmentOps> {
  const { segment } = instantiateSegmentKernelsSync(await readFile(kernelsWasmPath));
  return segment;
}
