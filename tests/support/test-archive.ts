// Test helpers for the format readers: an in-memory ImportArchive built from strings, a reporter
// that records what it is told, and a way to run a reader to the end.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { MAX_IMPORT_TEXT_BYTES } from '../../src/contract/imports';
import { ImportInputError, type DatasetRead, type FormatReader, type ImportArchive, type ImportedImage, type ImportReporter } from '../../src/server/formats/reader';

/** An archive of the given entries (path -> text or bytes), in the order given. */
export function memoryArchive(entries: Record<string, string | Buffer>): ImportArchive {
  const files = new Map(Object.entries(entries).map(([p, v]) => [p, typeof v === 'string' ? Buffer.from(v) : v]));
  const get = (p: string): Buffer => {
    const b = files.get(p);
    if (!b) throw new Error(`No entry ${p}`);
    return b;
  };
  return {
    paths: [...files.keys()],
    has: (p) => files.has(p),
    size: (p) => get(p).length,
    // Small chunks, so readers meet values split across chunks.
    open: async (p) => {
      const b = get(p);
      const chunks: Buffer[] = [];
      for (let i = 0; i < b.length; i += 7919) chunks.push(b.subarray(i, i + 7919));
      return Readable.from(chunks);
    },
    read: async (p, maxBytes = MAX_IMPORT_TEXT_BYTES) => {
      const b = get(p);
      if (b.length > maxBytes) throw new ImportInputError(`${p} is larger than ${maxBytes} bytes`);
      return b;
    },
  };
}

export interface RecordingReporter extends ImportReporter {
  skipped: { file: string; reason: string }[];
  warnings: string[];
}

export function recordingReporter(): RecordingReporter {
  const r: RecordingReporter = {
    skipped: [],
    warnings: [],
    skip: (file, reason) => void r.skipped.push({ file, reason }),
    warn: (message) => void r.warnings.push(message),
  };
  return r;
}

export interface ReadResult {
  dataset: DatasetRead;
  images: ImportedImage[];
  report: RecordingReporter;
  tmpDir: string;
}

/** Runs a reader over an archive to the end, in a fresh temporary directory (removed afterwards unless `keepTmp`). */
export async function readAll(reader: FormatReader, archive: ImportArchive, keepTmp = false): Promise<ReadResult> {
  const tmpDir = await fs.mkdtemp(path.join(os.tmpdir(), 'vellum-import-test-'));
  const report = recordingReporter();
  try {
    const dataset = await reader.read(archive, { report, tmpDir });
    const images: ImportedImage[] = [];
    for await (const image of dataset.images) images.push(image);
    return { dataset, images, report, tmpDir };
  } finally {
    if (!keepTmp) await fs.rm(tmpDir, { recursive: true, force: true });
  }
}

/** The image of that file name; fails the test when absent. */
export function imageNamed(images: readonly ImportedImage[], fileName: string): ImportedImage {
  const found = images.find((i) => i.fileName === fileName);
  if (!found) throw new Error(`No image ${fileName} among ${images.map((i) => i.fileName).join(', ')}`);
  return found;
}
