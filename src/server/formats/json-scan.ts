// Streams a JSON entry of the archive through stream-json's tokenizer (packed values only), so a
// file of any size is read without its object tree. Malformed JSON ends the import with the file,
// line and column of the error (found by stream-json's verifier, on the error path only).
import { Readable } from 'node:stream';
import { parser, type Token } from 'stream-json/parser.js';
import { verifier } from 'stream-json/utils/verifier.js';
import { MAX_IMPORT_NESTING } from '../../contract/imports';
import { ImportInputError, type ImportArchive } from './reader';

const tooDeep = (file: string) => new ImportInputError(`${file}: JSON nested more than ${MAX_IMPORT_NESTING} levels deep; at most ${MAX_IMPORT_NESTING} are read`);

export interface TokenSink {
  /** Called for each token; may throw an ImportInputError to end the scan. */
  token(tok: Token): void;
}

export interface ScanControl {
  /** Pauses the tokenizer until `p` settles (backpressure from a spill file). */
  waitFor(p: Promise<unknown>): void;
}

/** Reads the entry's tokens into `sink`; rejects with an ImportInputError naming the file and line on malformed JSON. */
export async function scanJson(archive: ImportArchive, file: string, makeSink: (control: ScanControl) => TokenSink, signal?: AbortSignal): Promise<void> {
  const source = await archive.open(file);
  const tokens = parser.asStream({ streamValues: false });
  let failure: Error | null = null;
  const control: ScanControl = {
    waitFor: (p) => {
      tokens.pause();
      p.then(
        () => tokens.resume(),
        (err: unknown) => fail(err as Error),
      );
    },
  };
  const sink = makeSink(control);
  const fail = (err: Error) => {
    failure ??= err;
    source.destroy();
    tokens.destroy();
  };
  const onAbort = () => fail(new Error('import aborted'));
  signal?.addEventListener('abort', onAbort);
  try {
    await new Promise<void>((resolve, reject) => {
      let settled = false;
      const finish = (err?: Error | null) => {
        if (settled) return;
        settled = true;
        if (err) reject(err);
        else resolve();
      };
      source.on('error', (err) => {
        fail(err);
        finish(failure);
      });
      tokens.on('error', (err) => {
        source.destroy();
        failure ??= new JsonSyntaxError(err.message);
        finish(failure);
      });
      tokens.on('close', () => finish(failure));
      tokens.on('end', () => finish(failure));
      let depth = 0;
      tokens.on('data', (tok: Token) => {
        if (failure) return;
        try {
          if (tok.name === 'startObject' || tok.name === 'startArray') {
            depth += 1;
            if (depth > MAX_IMPORT_NESTING) throw tooDeep(file);
          } else if (tok.name === 'endObject' || tok.name === 'endArray') depth -= 1;
          sink.token(tok);
        } catch (err) {
          fail(err as Error);
          finish(failure);
        }
      });
      source.pipe(tokens);
    });
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw new ImportInputError(`${file}: malformed JSON ${await locate(await archive.open(file), err.message)}`);
    throw err;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

class JsonSyntaxError extends Error {}

/** The deepest nesting of arrays and objects in JSON text (brackets inside strings not counted). */
export function nestingOf(bytes: Uint8Array): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (inString) {
      if (c === 0x5c) i += 1; // a backslash escapes the next byte
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d || c === 0x7d) depth -= 1;
  }
  return deepest;
}

/** A small JSON entry parsed whole (vellum.json, one image's document); malformed JSON names the file, line and column. */
export async function parseJsonEntry(archive: ImportArchive, file: string): Promise<unknown> {
  const bytes = await archive.read(file);
  if (nestingOf(bytes) > MAX_IMPORT_NESTING) throw tooDeep(file);
  try {
    return JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, ''));
  } catch (err) {
    throw new ImportInputError(`${file}: malformed JSON ${await locate(Readable.from([bytes]), (err as Error).message)}`);
  }
}

/** "at line 3, column 8: expected a value" (or the reason alone in brackets), from stream-json's verifier run over the same bytes. */
async function locate(source: Readable, fallback: string): Promise<string> {
  const check = verifier.asStream();
  const reason = (m: string) => m.replace(/^.*cannot parse input: /i, '').replace(/^.*has expected /i, 'expected ');
  return new Promise<string>((resolve) => {
    check.on('error', (err: Error & { line?: number; pos?: number }) => {
      source.destroy();
      resolve(err.line ? `at line ${err.line}, column ${err.pos ?? 0}: ${reason(err.message)}` : `(${reason(err.message)})`);
    });
    check.on('data', () => undefined);
    check.on('end', () => resolve(`(${reason(fallback)})`));
    source.on('error', () => resolve(`(${reason(fallback)})`));
    source.pipe(check);
  });
}
