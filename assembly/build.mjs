// Builds assembly/kernels/*.ts into assembly/build/kernels.wasm with the AssemblyScript
// compiler from node_modules (no network). Skips the compile when the sources, this script and
// the compiler version are unchanged since the last build (a hash is kept next to the output),
// so `npm run test:unit` and `npm run bench` can always call it.
//
// Usage: node assembly/build.mjs [--force] [--debug]   (--debug also writes kernels.wat)
import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';

const here = dirname(fileURLToPath(import.meta.url));
const srcDir = join(here, 'kernels');
const outDir = join(here, 'build');
export const wasmPath = join(outDir, 'kernels.wasm');
const hashPath = join(outDir, 'kernels.hash');

// -O3 without assertions; SIMD (Node >= 16.4, Chrome 91, Firefox 89, Safari 16.4) speeds up
// mask scanning; the minimal runtime gives a TLSF heap for heap.alloc/free and no automatic GC
// (the kernels create no managed objects).
const FLAGS = ['--optimizeLevel', '3', '--shrinkLevel', '0', '--noAssert', '--runtime', 'minimal', '--enable', 'simd'];

async function sourceHash(extra) {
  const h = createHash('sha256');
  const require = createRequire(import.meta.url);
  h.update(JSON.parse(await readFile(require.resolve('assemblyscript/package.json'), 'utf8')).version);
  h.update(JSON.stringify(FLAGS) + JSON.stringify(extra));
  h.update(await readFile(fileURLToPath(import.meta.url)));
  for (const name of (await readdir(srcDir)).sort()) {
    if (!name.endsWith('.ts')) continue;
    h.update(name);
    h.update(await readFile(join(srcDir, name)));
  }
  return h.digest('hex');
}

/** Compiles when needed; resolves to the path of kernels.wasm. */
export async function buildKernels({ force = false, debug = false, quiet = false } = {}) {
  const hash = await sourceHash({ debug });
  if (!force) {
    const [old, wasm] = await Promise.all([readFile(hashPath, 'utf8').catch(() => ''), readFile(wasmPath).catch(() => null)]);
    if (old === hash && wasm) return wasmPath;
  }
  await mkdir(outDir, { recursive: true });
  const { default: asc } = await import('assemblyscript/asc');
  // Unique temporary names, renamed into place, so concurrent builds (parallel test workers)
  // never expose a half-written module.
  const tmp = join(outDir, `kernels.${process.pid}.${Date.now()}.tmp`);
  const args = [join(srcDir, 'index.ts'), '--outFile', `${tmp}.wasm`, ...FLAGS];
  if (debug) args.push('--textFile', join(outDir, 'kernels.wat'));
  const started = performance.now();
  const { error, stderr } = await asc.main(args, { stdout: process.stdout, stderr: process.stderr });
  if (error) {
    await rm(`${tmp}.wasm`, { force: true });
    throw new Error(`asc failed: ${error.message}\n${stderr.toString()}`);
  }
  await rename(`${tmp}.wasm`, wasmPath);
  await writeFile(`${tmp}.hash`, hash);
  await rename(`${tmp}.hash`, hashPath);
  if (!quiet) console.log(`built ${wasmPath} in ${Math.round(performance.now() - started)} ms`);
  return wasmPath;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const argv = process.argv.slice(2);
  buildKernels({ force: argv.includes('--force'), debug: argv.includes('--debug') }).catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
