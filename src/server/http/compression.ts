// Response compression (@fastify/compress) for every route registered after it: JSON and other
// text bodies of 1 KB or more, buffered or streamed (a stream is compressed whatever its size), go
// out as br when the client accepts it, else gzip (deflate last), else as they are. Which types are
// compressed is the plugin's choice (its pattern for text, JSON and XML, then mime-db's
// `compressible`): images other than SVG, zips and fonts are passed through as they are, and so
// are the signed object downloads of the local storage driver, which keep their byte ranges and
// ETags (`compress: false` in storage/local-routes.ts), and the SPA's files (app.ts). A route
// whose stream must reach the client as it is written (server-sent events) sets `compress: false`:
// streams are compressed in 64 KB pieces (below).
//
// Levels, measured with `node --import tsx bench/compression.bench.ts` on a 35.4 MB load-data-like
// body of 100k shapes (UUID ids, 0.1 px coordinates, 12-vertex polygons) written to the compressor
// in 64 KB pieces, time to the last compressed byte, median of 3, over four runs on this 2-core
// machine at load 0.5-2.9 (in brackets: one run with the other core kept busy, load 3.3-4.2):
//   brotli q1 217-271 ms (428), 13.1 MB | q2 378-423 ms (403), 12.6 MB | q3 480-560 ms (452), 12.7 MB
//   brotli q4 0.65-1.4 s (1.3 s), 12.1-12.7 MB
//   gzip 1 377-456 ms (580), 13.6 MB | 2 405-474 ms (490), 13.3 MB | 3 548-615 ms (839), 13.1 MB
//   gzip 4 490-574 ms (1.0 s), 12.9 MB | 5 0.8-1.1 s (853), 12.3 MB | 6 1.3-1.5 s (1.4 s), 12.2 MB
// Chosen: brotli quality 2 and gzip level 1, both well under a second for 35 MB. Brotli's quality
// 0 and 1 are faster but compress each write on its own (one write per shape: 24.4 MB, 1.4x), so
// they would depend on how a route writes; quality 2 and up do not. Levels above these save a few
// percent for 1.5-4x the CPU. (Random coordinates compress 2.7x; real documents, with repeated
// classes and attributes, do better.) The SPA's files are compressed at build time at the highest
// levels instead (static-assets.ts), so they cost nothing per request.
import zlib from 'node:zlib';
import * as stream from 'node:stream';
import { Transform, type Duplex } from 'node:stream';
import type { FastifyCompressOptions } from '@fastify/compress';

const PIECE_BYTES = 64 * 1024;

/**
 * Gathers a stream's small writes into pieces of 64 KB before they reach the compressor. Each
 * write to a zlib stream is a trip to the thread pool: the body above written one shape at a time
 * took 1.8-1.9 s at brotli 2 or gzip 1, and 451-471 ms gathered.
 */
export function coalesce(pieceBytes = PIECE_BYTES): Transform {
  let pending: Buffer[] = [];
  let length = 0;
  const take = () => {
    const piece = Buffer.concat(pending, length);
    pending = [];
    length = 0;
    return piece;
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      pending.push(chunk);
      length += chunk.length;
      if (length >= pieceBytes) done(null, take());
      else done();
    },
    flush(done) {
      done(null, length > 0 ? take() : undefined);
    },
  });
}

// stream.compose (Node 16.9+; @fastify/compress uses it too) is not declared by @types/node 20.
const compose = (stream as unknown as { compose: (...streams: Duplex[]) => Duplex }).compose;
const gathered = <T extends Duplex>(compressor: (options: never) => T) => (options: never) => compose(coalesce(), compressor(options));

export const compressionOptions: FastifyCompressOptions = {
  threshold: 1024,
  encodings: ['br', 'gzip', 'deflate'],
  brotliOptions: {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: 2,
      [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
    },
  },
  zlibOptions: { level: 1 },
  // Streams go through coalesce() first; buffered bodies up to the plugin's syncThreshold are
  // compressed in one call (the synchronous functions must be given along with the stream ones).
  zlib: {
    createBrotliCompress: gathered(zlib.createBrotliCompress),
    createGzip: gathered(zlib.createGzip),
    createDeflate: gathered(zlib.createDeflate),
    brotliCompressSync: zlib.brotliCompressSync,
    gzipSync: zlib.gzipSync,
    deflateSync: zlib.deflateSync,
  },
  // Responses only: request bodies stay as sent (a compressed upload is not a feature we offer).
  globalDecompression: false,
};
