// The zip being written into the response (ZipSink: a bounded queue in front of ZipWriter, so a
// slow client slows the producer down; its bytes are pushed into a Readable the route sends, which
// wakes the writer when the response wants more) and Spool (items appended to a temporary file,
// for lists that must span the whole export but are written at its end). See ./index.ts for the
// memory bounds.
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { Readable } from 'node:stream';
import { once } from 'node:events';
import { ZipWriter } from './zip';

/** Spool text kept in memory before one write to its file. */
const SPOOL_BATCH_CHARS = 64 * 1024;

/** Zip entries queued ahead of the writer. */
const QUEUE_AHEAD = 4;

/** An entry's content: whole, or a stream of it (a large image file). */
type EntryData = Buffer | Readable;

/**
 * One zip entry waiting for the writer. An image file's content is still being read while the
 * entries before it are written (`data` a promise: null when the file is gone from storage, and
 * `missing` is told).
 */
interface Pending {
  path: string;
  data: EntryData | Promise<EntryData | null>;
  compress: boolean;
  missing?: () => void;
}

/** Frees an entry that will not be written: a stream is destroyed, also one still being opened. */
function discard(e: Pending): void {
  if (Buffer.isBuffer(e.data)) return;
  if (e.data instanceof Readable) e.data.destroy();
  else void e.data.then((d) => d instanceof Readable && d.destroy(), () => undefined);
}

/**
 * The response body: bytes are pushed in, and `pulled` wakes the writer once the response has
 * read what it held (a Readable rather than a PassThrough: no writable side to go through per chunk).
 */
class ZipStream extends Readable {
  private pulled: (() => void) | null = null;
  override _read(): void {
    this.wake();
  }
  wake(): void {
    const w = this.pulled;
    this.pulled = null;
    w?.();
  }
  /** Resolves once the consumer wants more, or the stream is gone. */
  whenPulled(): Promise<void> {
    return new Promise<void>((resolve) => (this.pulled = resolve));
  }
}

/**
 * The zip being written into the response, with a bounded queue: room() waits while QUEUE_AHEAD
 * entries are waiting, so a slow client slows the producer down instead of buffering the dataset.
 */
export class ZipSink {
  readonly out = new ZipStream();
  aborted = false;
  private failure: Error | null = null;
  private readonly zip: ZipWriter;
  /** Entries not yet written, the one being written first; their streams are destroyed when the client goes away. */
  private readonly queue: Pending[] = [];
  private pumping = false;
  private wake: (() => void) | null = null;

  constructor(tmpDir: string) {
    this.zip = new ZipWriter({ write: (chunk) => this.write(chunk), centralDirectoryPath: path.join(tmpDir, 'central-directory.bin') });
    this.out.on('close', () => {
      this.aborted = !this.out.readableEnded || this.aborted;
      this.out.wake();
      if (this.aborted) {
        for (const e of this.queue) discard(e);
        this.queue.length = 0;
        this.zip.abandon();
      }
      this.notify();
    });
  }

  private notify(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  private check(): void {
    if (this.failure) throw this.failure;
    if (this.aborted) throw new ExportAborted();
  }

  private fail(err: Error): void {
    if (this.failure || this.aborted) return;
    this.failure = err;
    for (const e of this.queue) discard(e);
    this.out.destroy(err);
    this.notify();
  }

  /** Writes to the response, waiting while its buffer is full. */
  private async write(chunk: Buffer): Promise<void> {
    this.check();
    if (this.out.push(chunk)) return;
    await this.out.whenPulled();
    this.check();
  }

  private pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    void (async () => {
      while (this.queue.length > 0 && !this.aborted && !this.failure) {
        const e = this.queue[0]!;
        try {
          const data = await e.data;
          if (data === null) e.missing?.();
          else await this.zip.add(e.path, data, e.compress);
        } catch (err) {
          if (!this.aborted) this.fail(err as Error);
          break;
        }
        this.queue.shift();
        this.notify();
      }
      this.pumping = false;
      this.notify();
    })();
  }

  async room(): Promise<void> {
    while (this.queue.length >= QUEUE_AHEAD && !this.aborted && !this.failure) await new Promise<void>((resolve) => (this.wake = resolve));
    this.check();
  }

  add(data: EntryData, entryPath: string, compress: boolean): void {
    this.check();
    // A stream that fails while it waits ends the export at once (and never goes unhandled).
    if (!Buffer.isBuffer(data)) data.on('error', (err) => this.fail(err));
    this.queue.push({ path: entryPath, data, compress });
    this.pump();
  }

  /**
   * Queues a file whose content is still being read (`read`: null when it is gone, then `missing`
   * is told instead of an entry written). Files are read up to QUEUE_AHEAD at once, each while the
   * entries before it are written. Call room() first.
   */
  addFile(entryPath: string, read: Promise<EntryData | null>, compress: boolean, missing: () => void): void {
    this.check();
    // A read that fails ends the export at once (and never goes unhandled), as a failing stream does.
    const data = read.then((d) => {
      if (d instanceof Readable) d.on('error', (err) => this.fail(err));
      return d;
    });
    data.catch((err: Error) => this.fail(err));
    this.queue.push({ path: entryPath, data, compress, missing });
    this.pump();
  }

  /** Resolves once every queued entry is written (or skipped as missing). */
  async drained(): Promise<void> {
    while ((this.queue.length > 0 || this.pumping) && !this.aborted && !this.failure) await new Promise<void>((resolve) => (this.wake = resolve));
    this.check();
  }

  async addText(entryPath: string, text: string | Buffer): Promise<void> {
    await this.room();
    this.add(typeof text === 'string' ? Buffer.from(text) : text, entryPath, true);
  }

  /**
   * Writes what is queued, the central directory and the end records, and ends the response;
   * `written` runs once every byte is written, before the response ends (so a client that has the
   * whole zip already sees its effect: the progress route's 'done').
   */
  async end(written?: () => void): Promise<void> {
    await this.drained();
    await this.zip.finish();
    written?.();
    this.out.push(null);
    if (this.out.readableEnded || this.out.destroyed) return;
    // Read to the end, or closed early by a client that went away: either ends the wait.
    await new Promise<void>((resolve) => {
      this.out.once('end', resolve);
      this.out.once('close', resolve);
    });
  }
}

export class ExportAborted extends Error {
  constructor() {
    super('export aborted by the client');
  }
}

/**
 * Appends items to a temporary file, `separator` between them, respecting the file stream's
 * backpressure; once closed, chunks() reads them back (COCO's lists, VOC's image set).
 */
export class Spool {
  private readonly file: fs.WriteStream;
  count = 0;
  /** Items not yet written: written SPOOL_BATCH_CHARS at a time (one write per item cost ~0.5 s of CPU for COCO at 10k images). */
  private pending = '';
  constructor(
    readonly filePath: string,
    private readonly separator = ',\n',
  ) {
    this.file = fs.createWriteStream(filePath);
  }
  async push(text: string): Promise<void> {
    this.pending += this.count === 0 ? text : `${this.separator}${text}`;
    this.count += 1;
    if (this.pending.length >= SPOOL_BATCH_CHARS) await this.flush();
  }
  private async flush(): Promise<void> {
    if (!this.pending) return;
    const ok = this.file.write(this.pending);
    this.pending = '';
    if (!ok) await once(this.file, 'drain');
  }
  async close(): Promise<void> {
    await this.flush();
    this.file.end();
    await once(this.file, 'close');
  }
  async *chunks(): AsyncGenerator<Buffer> {
    for await (const chunk of fs.createReadStream(this.filePath)) yield chunk as Buffer;
  }
  /** The items one by one (for a spool whose separator is a newline and whose items hold none). */
  async *lines(): AsyncGenerator<string> {
    const rl = readline.createInterface({ input: fs.createReadStream(this.filePath), crlfDelay: Infinity });
    for await (const line of rl) if (line) yield line;
  }
}
