// A streaming zip writer whose memory does not grow with the number of entries.
//
// Entries are written one after another straight to the output: local header, data (deflated or
// stored), data descriptor (general purpose bit 3: CRC and sizes follow the data, so nothing is
// buffered to learn them). Each entry's central directory record is appended to a temporary file
// as soon as the entry is done, and that file is copied to the output at the end; so nothing per
// entry stays in memory, whether the zip holds ten entries or a million. (yazl, used before, kept
// every entry object, and with it every source stream, until the end, and scanned its whole entry
// list for each entry.)
//
// Names are UTF-8 (bit 11). ZIP64 as yazl and Info-ZIP write it: an entry or an offset past 4 GiB
// gets a ZIP64 data descriptor and a ZIP64 extra field in its central record; more than 65,534
// entries or a central directory past 4 GiB gets the ZIP64 end records.
import fs from 'node:fs';
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

const deflateRaw = promisify(zlib.deflateRaw);

const MAX32 = 0xffffffff;
const MAX16 = 0xffff;
const VERSION_MADE_BY = (3 << 8) | 63; // unix, spec 6.3
const VERSION_NEEDED = 20;
const VERSION_NEEDED_ZIP64 = 45;
const FLAGS = (1 << 3) | (1 << 11); // data descriptor, UTF-8 names
const FILE_MODE = 0o100644;
const SYNC_DEFLATE_MAX = 64 * 1024;
const CENTRAL_BATCH_BYTES = 64 * 1024;

function dosDateTime(d: Date): { date: number; time: number } {
  const year = Math.min(Math.max(d.getFullYear(), 1980), 2107);
  return {
    date: ((year - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | (d.getSeconds() >> 1),
  };
}

function u64(buf: Buffer, value: number, offset: number): void {
  buf.writeBigUInt64LE(BigInt(value), offset);
}

export interface ZipWriterOptions {
  /** Writes bytes to the output, resolving once it can take more (backpressure). */
  write(chunk: Buffer): Promise<void>;
  /** Temporary file for the central directory (created, then left for the caller to remove). */
  centralDirectoryPath: string;
  mtime?: Date;
}

export class ZipWriter {
  private offset = 0;
  private count = 0;
  private readonly central: fs.WriteStream;
  private centralBytes = 0;
  /** Central records not yet written to the file: written 64 KiB at a time (one write per record cost ~0.2 s of CPU at 10k entries). */
  private centralPending: Buffer[] = [];
  private centralPendingBytes = 0;
  private centralError: Error | null = null;
  private readonly date: number;
  private readonly time: number;
  private readonly unixTime: number;

  constructor(private readonly opts: ZipWriterOptions) {
    this.central = fs.createWriteStream(opts.centralDirectoryPath);
    this.central.on('error', (err) => (this.centralError ??= err));
    const mtime = opts.mtime ?? new Date();
    ({ date: this.date, time: this.time } = dosDateTime(mtime));
    this.unixTime = Math.max(-0x80000000, Math.min(0x7fffffff, Math.floor(mtime.getTime() / 1000)));
  }

  get entries(): number {
    return this.count;
  }

  private async out(chunk: Buffer): Promise<void> {
    this.offset += chunk.length;
    await this.opts.write(chunk);
  }

  /** Writes one entry. `data` is the whole content or a stream of it; a stream is consumed (and destroyed on error). */
  async add(name: string, data: Buffer | Readable, compress: boolean): Promise<void> {
    const fileName = Buffer.from(name, 'utf8');
    if (fileName.length > MAX16) throw new Error(`zip entry name too long: ${name.slice(0, 100)}...`);
    const headerOffset = this.offset;
    const method = compress ? 8 : 0;
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(VERSION_NEEDED, 4);
    header.writeUInt16LE(FLAGS, 6);
    header.writeUInt16LE(method, 8);
    header.writeUInt16LE(this.time, 10);
    header.writeUInt16LE(this.date, 12);
    // CRC and sizes (14..25) stay 0: they follow in the data descriptor.
    header.writeUInt16LE(fileName.length, 26);
    await this.out(Buffer.concat([header, fileName]));

    let crc = 0;
    let size = 0;
    let compressedSize = 0;
    if (Buffer.isBuffer(data)) {
      crc = zlib.crc32(data);
      size = data.length;
      // Small contents (an image's annotation JSON) deflate here: quicker than a trip to the thread pool.
      const body = !compress ? data : data.length <= SYNC_DEFLATE_MAX ? zlib.deflateRawSync(data) : await deflateRaw(data);
      compressedSize = body.length;
      await this.out(body);
    } else {
      // The entry's CRC and size, counted on its uncompressed bytes: one place for deflated and stored entries.
      const measured = (raw: Buffer | string): Buffer => {
        const chunk = typeof raw === 'string' ? Buffer.from(raw) : raw;
        crc = zlib.crc32(chunk, crc);
        size += chunk.length;
        return chunk;
      };
      const measure = async function* (source: AsyncIterable<Buffer | string>) {
        for await (const raw of source) yield measured(raw);
      };
      const sink = async (source: AsyncIterable<Buffer>) => {
        for await (const chunk of source) {
          compressedSize += chunk.length;
          await this.out(chunk);
        }
      };
      if (compress) await pipeline(data, measure, zlib.createDeflateRaw(), sink);
      else {
        // Stored (an image file): one loop, no pipeline stages (each stage costs promises per chunk).
        try {
          for await (const raw of data) {
            const chunk = measured(raw as Buffer | string);
            compressedSize += chunk.length;
            await this.out(chunk);
          }
        } finally {
          data.destroy();
        }
      }
    }

    const zip64 = size >= MAX32 || compressedSize >= MAX32 || headerOffset >= MAX32;
    const descriptor = Buffer.alloc(zip64 ? 24 : 16);
    descriptor.writeUInt32LE(0x08074b50, 0);
    descriptor.writeUInt32LE(crc >>> 0, 4);
    if (zip64) {
      u64(descriptor, compressedSize, 8);
      u64(descriptor, size, 16);
    } else {
      descriptor.writeUInt32LE(compressedSize, 8);
      descriptor.writeUInt32LE(size, 12);
    }
    await this.out(descriptor);

    // Central directory record, with the Info-ZIP universal timestamp (UTC mtime) and, when needed, ZIP64 sizes and offset.
    const extraLength = 9 + (zip64 ? 28 : 0);
    const record = Buffer.alloc(46 + fileName.length + extraLength);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(VERSION_MADE_BY, 4);
    record.writeUInt16LE(zip64 ? VERSION_NEEDED_ZIP64 : VERSION_NEEDED, 6);
    record.writeUInt16LE(FLAGS, 8);
    record.writeUInt16LE(method, 10);
    record.writeUInt16LE(this.time, 12);
    record.writeUInt16LE(this.date, 14);
    record.writeUInt32LE(crc >>> 0, 16);
    record.writeUInt32LE(zip64 ? MAX32 : compressedSize, 20);
    record.writeUInt32LE(zip64 ? MAX32 : size, 24);
    record.writeUInt16LE(fileName.length, 28);
    record.writeUInt16LE(extraLength, 30);
    // comment length, disk number, internal attributes: 0
    record.writeUInt32LE((FILE_MODE << 16) >>> 0, 38);
    record.writeUInt32LE(zip64 ? MAX32 : headerOffset, 42);
    fileName.copy(record, 46);
    let p = 46 + fileName.length;
    record.writeUInt16LE(0x5455, p); // 'UT'
    record.writeUInt16LE(5, p + 2);
    record.writeUInt8(0b11, p + 4); // mtime (and atime, as Info-ZIP sets it in central records)
    record.writeInt32LE(this.unixTime, p + 5);
    p += 9;
    if (zip64) {
      record.writeUInt16LE(0x0001, p);
      record.writeUInt16LE(24, p + 2);
      u64(record, size, p + 4);
      u64(record, compressedSize, p + 12);
      u64(record, headerOffset, p + 20);
    }
    this.count += 1;
    this.centralBytes += record.length;
    if (this.centralError) throw this.centralError;
    this.centralPending.push(record);
    this.centralPendingBytes += record.length;
    if (this.centralPendingBytes >= CENTRAL_BATCH_BYTES) await this.flushCentral();
  }

  private async flushCentral(): Promise<void> {
    if (this.centralPending.length === 0) return;
    const batch = Buffer.concat(this.centralPending, this.centralPendingBytes);
    this.centralPending = [];
    this.centralPendingBytes = 0;
    if (!this.central.write(batch)) await once(this.central, 'drain');
  }

  /** Writes the central directory and the end records. */
  async finish(): Promise<void> {
    const start = this.offset;
    if (this.centralError) throw this.centralError;
    await this.flushCentral();
    this.central.end();
    await once(this.central, 'close');
    if (this.centralError) throw this.centralError;
    for await (const chunk of fs.createReadStream(this.opts.centralDirectoryPath)) await this.out(chunk as Buffer);
    const size = this.offset - start;
    if (size !== this.centralBytes) throw new Error(`zip central directory: wrote ${this.centralBytes} bytes, read back ${size}`);
    const zip64 = this.count >= MAX16 || size >= MAX32 || start >= MAX32;
    if (zip64) {
      const zip64End = this.offset;
      const record = Buffer.alloc(56);
      record.writeUInt32LE(0x06064b50, 0);
      u64(record, 56 - 12, 4);
      record.writeUInt16LE(VERSION_MADE_BY, 12);
      record.writeUInt16LE(VERSION_NEEDED_ZIP64, 14);
      // this disk, disk with the central directory: 0
      u64(record, this.count, 24);
      u64(record, this.count, 32);
      u64(record, size, 40);
      u64(record, start, 48);
      const locator = Buffer.alloc(20);
      locator.writeUInt32LE(0x07064b50, 0);
      u64(locator, zip64End, 8);
      locator.writeUInt32LE(1, 16);
      await this.out(Buffer.concat([record, locator]));
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(zip64 ? MAX16 : this.count, 8);
    end.writeUInt16LE(zip64 ? MAX16 : this.count, 10);
    end.writeUInt32LE(zip64 ? MAX32 : size, 12);
    end.writeUInt32LE(zip64 ? MAX32 : start, 16);
    await this.out(end);
  }

  /** Closes the central directory file without finishing the zip (the export was abandoned). */
  abandon(): void {
    this.central.destroy();
  }
}
