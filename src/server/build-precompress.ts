// The last step of `npm run build`: .br and .gz copies beside the SPA's text files, which the
// server's static files answer with when the client accepts them (http/static-assets.ts).
// Usage: node --import tsx src/server/build-precompress.ts [dir, default dist/app]
import path from 'node:path';
import { precompressStaticFiles } from './http/static-assets';

const dir = path.resolve(process.argv[2] ?? 'dist/app');
const started = performance.now();
const results = await precompressStaticFiles(dir);
const done = results.filter((r) => r.br !== undefined || r.gz !== undefined);
const kb = (n: number) => `${(n / 1024).toFixed(1)} kB`;
for (const r of done) console.log(`  ${r.file}  ${kb(r.bytes)}  br ${r.br === undefined ? '-' : kb(r.br)}  gz ${r.gz === undefined ? '-' : kb(r.gz)}`);
console.log(`precompressed ${done.length} of ${results.length} text files in ${dir} in ${Math.round(performance.now() - started)} ms`);
