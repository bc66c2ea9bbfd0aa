// The SPA's files (dist/app): how long browsers may keep them, and their compressed copies.
//
// Vite names everything it emits under assets/ by a hash of its content, so those files never
// change under their name: browsers keep them for a year without asking again. index.html names
// the current hashes, so it (and the SPA fallback that answers it for client routes) is revalidated
// on every visit, and so is anything else at the top level (favicon.svg, from public/).
//
// Compression happens once, at build time: precompressStaticFiles() writes `<file>.br` and
// `<file>.gz` beside each text file of 1 KB or more (`npm run build` runs build-precompress.ts
// after `vite build`), and @fastify/static's `preCompressed` serves the copy the client's
// Accept-Encoding asks for (br first), with Content-Encoding and Vary: Accept-Encoding, or the
// plain file. A build without the copies (a bare `vite build`) is served plain.
import fs from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { promisify } from 'node:util';

export const IMMUTABLE = 'public, max-age=31536000, immutable';
export const REVALIDATE = 'no-cache';

/** Cache-Control for a file served from the app directory (`filePath` absolute or relative to it; a .br/.gz copy counts as its original). */
export function staticCacheControl(appDir: string, filePath: string): string {
  const rel = path.relative(appDir, path.resolve(appDir, filePath)).split(path.sep).join('/');
  return rel.startsWith('assets/') ? IMMUTABLE : REVALIDATE;
}

/** Text formats worth compressing; images, fonts (woff2 is compressed already) and the like are left alone. */
const COMPRESSIBLE = new Set(['.js', '.mjs', '.css', '.html', '.svg', '.wasm', '.json', '.map', '.txt', '.xml', '.webmanifest']);
export const PRECOMPRESS_MIN_BYTES = 1024;

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(full)));
    else if (entry.isFile()) out.push(full);
  }
  return out;
}

export interface PrecompressResult {
  file: string;
  bytes: number;
  br?: number;
  gz?: number;
}

/**
 * Writes `<file>.br` (brotli, quality 11) and `<file>.gz` (gzip, level 9) beside every
 * compressible file of at least 1 KB under `dir`, keeping a copy only when it is smaller than the
 * original. Source maps, fetched only by developer tools, get brotli quality 9 (11 takes ~10 s on
 * a 6 MB map). Files are compressed two at a time (libuv's thread pool does the work).
 */
export async function precompressStaticFiles(dir: string): Promise<PrecompressResult[]> {
  const files = (await filesUnder(dir)).filter((f) => COMPRESSIBLE.has(path.extname(f).toLowerCase()));
  const results: PrecompressResult[] = [];
  const queue = [...files];
  const work = async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const body = await fs.readFile(file);
      const result: PrecompressResult = { file: path.relative(dir, file), bytes: body.length };
      results.push(result);
      for (const ext of ['.br', '.gz']) await fs.rm(file + ext, { force: true });
      if (body.length < PRECOMPRESS_MIN_BYTES) continue;
      const quality = file.endsWith('.map') ? 9 : 11;
      const [br, gz] = await Promise.all([
        brotli(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
        gzip(body, { level: 9 }),
      ]);
      if (br.length < body.length) {
        await fs.writeFile(file + '.br', br);
        result.br = br.length;
      }
      if (gz.length < body.length) {
        await fs.writeFile(file + '.gz', gz);
        result.gz = gz.length;
      }
    }
  };
  await Promise.all([work(), work()]);
  return results.sort((a, b) => a.file.localeCompare(b.file));
}
