// The uploaded import file as an ImportArchive, read from a local temporary file.
//
// A zip is opened with yauzl, which reads the central directory and then each entry on demand
// from the file, so a 10 GB archive is never held in memory: only the list of entries is (at most
// MAX_IMPORT_ENTRIES). Before any reader sees it, every entry is checked:
// - a name with '..' segments, an absolute path or a drive letter is never opened: it is skipped
//   and reported (nothing is ever written to disk under an entry's name anyway);
// - zip-bomb limits (src/contract/imports.ts): more than MAX_IMPORT_ENTRIES entries or more than
//   MAX_IMPORT_UNCOMPRESSED_BYTES in total ends the import; one entry that claims to expand more
//   than MAX_IMPORT_ENTRY_RATIO times its compressed size is skipped; yauzl checks while reading
//   that an entry inflates to exactly the size its header declares, so a lying header fails;
// - macOS metadata (__MACOSX/, .DS_Store) is ignored.
// A .json or .xml file is an archive of one entry.
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import yauzl from 'yauzl';
import {
  MAX_IMPORT_ENTRIES,
  MAX_IMPORT_ENTRY_RATIO,
  MAX_IMPORT_TEXT_BYTES,
  MAX_IMPORT_UNCOMPRESSED_BYTES,
} from '../../../contract/imports';
import { ImportInputError, type ImportArchive, type ImportReporter } from '../../formats/reader';

/** Entries smaller than this are never refused for their ratio (a 1 KB run of spaces is not a bomb). */
const RATIO_MIN_BYTES = 1024 * 1024;

export interface OpenedArchive extends ImportArchive {
  /** Entries left unread for their compression ratio (named when the format cannot be recognised without them). */
  readonly refused: readonly string[];
  close(): void;
}

/** Reads a stream whole, refusing more than `maxBytes`. */
export async function readCapped(stream: Readable, maxBytes: number, what: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      stream.destroy();
      throw new ImportInputError(`${what} is larger than the ${Math.round(maxBytes / 1024 / 1024)} MB that can be read at once`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function isZip(file: string): boolean {
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(4);
    fs.readSync(fd, head, 0, 4, 0);
    // A local file header, or the end record of an empty zip.
    return head.readUInt32LE(0) === 0x04034b50 || head.readUInt32LE(0) === 0x06054b50;
  } finally {
    fs.closeSync(fd);
  }
}

function ignored(name: string): boolean {
  return name.startsWith('__MACOSX/') || name.split('/').pop() === '.DS_Store';
}

/** One .json or .xml file as an archive of one entry named like the upload. */
function singleFile(file: string, name: string): OpenedArchive {
  const size = fs.statSync(file).size;
  const entryName = path.posix.basename(name.replace(/\\/g, '/'));
  return {
    paths: [entryName],
    refused: [],
    has: (p) => p === entryName,
    size: () => size,
    open: async () => fs.createReadStream(file),
    read: async (p, maxBytes = MAX_IMPORT_TEXT_BYTES) => readCapped(fs.createReadStream(file), maxBytes, p),
    close: () => undefined,
  };
}

function openZipFile(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true }, (err, zip) => {
      if (err) reject(new ImportInputError(`The file is not a readable zip archive (${err.message})`));
      else resolve(zip);
    });
  });
}

/** Lists the zip's file entries, checking names and sizes; unsafe ones are reported and left out. */
function listEntries(zip: yauzl.ZipFile, report: ImportReporter, refused: string[]): Promise<Map<string, yauzl.Entry>> {
  const entries = new Map<string, yauzl.Entry>();
  if (zip.entryCount > MAX_IMPORT_ENTRIES) {
    return Promise.reject(new ImportInputError(`The archive has ${zip.entryCount} entries; at most ${MAX_IMPORT_ENTRIES} are accepted`));
  }
  let total = 0;
  return new Promise((resolve, reject) => {
    zip.on('error', (err: Error) => reject(new ImportInputError(`The zip archive is damaged (${err.message})`)));
    zip.on('end', () => resolve(entries));
    zip.on('entry', (entry: yauzl.Entry) => {
      const raw = entry.fileName as unknown as Buffer;
      const name = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, raw, entry.extraFields, false);
      const unsafe = yauzl.validateFileName(name);
      if (unsafe) report.skip(name.slice(0, 300), `unsafe path in the archive (${unsafe}); not read`);
      else if (!name.endsWith('/') && !ignored(name)) {
        total += entry.uncompressedSize;
        if (total > MAX_IMPORT_UNCOMPRESSED_BYTES) {
          reject(new ImportInputError(`The archive expands to more than ${MAX_IMPORT_UNCOMPRESSED_BYTES / 1024 ** 3} GB; at most that is accepted`));
          return;
        }
        const ratio = entry.uncompressedSize / Math.max(1, entry.compressedSize);
        if (entry.uncompressedSize > RATIO_MIN_BYTES && ratio > MAX_IMPORT_ENTRY_RATIO) {
          report.skip(name, `it would expand ${Math.round(ratio)} times its compressed size (at most ${MAX_IMPORT_ENTRY_RATIO} is accepted)`);
          refused.push(name);
        } else if (entries.has(name)) report.skip(name, 'the archive holds two entries with this name; the first was read');
        else entries.set(name, entry);
      }
      zip.readEntry();
    });
    zip.readEntry();
  });
}

/**
 * The entry's stream, whose errors (a lying header, damaged deflate data) are ImportInputErrors
 * naming the entry: bad input that fails the import once, not a crash that is retried.
 */
function namingErrors(stream: Readable, name: string, declared: number): Readable {
  const out = new PassThrough();
  stream.on('error', (err: Error) => {
    const lying = /too many bytes|not enough bytes/i.test(err.message);
    out.destroy(new ImportInputError(lying ? `${name}: the entry inflates to a different size than the ${declared} bytes its header declares` : `${name} cannot be read from the archive (${err.message})`));
  });
  out.on('close', () => stream.destroy());
  return stream.pipe(out);
}

async function openZip(file: string, report: ImportReporter): Promise<OpenedArchive> {
  const zip = await openZipFile(file);
  let entries: Map<string, yauzl.Entry>;
  const refused: string[] = [];
  try {
    entries = await listEntries(zip, report, refused);
  } catch (err) {
    zip.close();
    throw err;
  }
  const paths = [...entries.keys()];
  const entryOf = (p: string): yauzl.Entry => {
    const e = entries.get(p);
    if (!e) throw new ImportInputError(`${p} is not in the archive`);
    return e;
  };
  const open = (p: string): Promise<Readable> =>
    new Promise((resolve, reject) => {
      const entry = entryOf(p);
      zip.openReadStream(entry, (err, stream) => {
        if (err) reject(new ImportInputError(`${p} cannot be read from the archive (${err.message})`));
        else resolve(namingErrors(stream, p, entry.uncompressedSize));
      });
    });
  return {
    paths,
    refused,
    has: (p) => entries.has(p),
    size: (p) => entryOf(p).uncompressedSize,
    open,
    read: async (p, maxBytes = MAX_IMPORT_TEXT_BYTES) => {
      if (entryOf(p).uncompressedSize > maxBytes) throw new ImportInputError(`${p} is larger than the ${Math.round(maxBytes / 1024 / 1024)} MB that can be read at once`);
      return readCapped(await open(p), maxBytes, p);
    },
    close: () => zip.close(),
  };
}

/**
 * The uploaded file at `file` as an archive: a zip (by its bytes), else one .json or .xml file
 * named `originalName`. Anything else is an ImportInputError.
 */
export async function openImportFile(file: string, originalName: string, report: ImportReporter): Promise<OpenedArchive> {
  if (fs.statSync(file).size >= 4 && isZip(file)) return openZip(file, report);
  const ext = path.extname(originalName).toLowerCase();
  if (ext === '.json' || ext === '.xml') return singleFile(file, originalName);
  throw new ImportInputError(`"${originalName.slice(0, 200)}" is not a .zip archive, a .json or an .xml file`);
}
