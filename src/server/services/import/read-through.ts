// The dry run's reading (./run.ts): the whole dataset read once, nothing written. Pure (no
// database, storage or context), so it runs on an offload thread (src/server/offload, task
// `importReadThrough`): parsing a large archive never holds the request thread. What it found is
// handed back as plain values: the number of images, every class name it would need, the folder
// errors, and the report lines to record.
import { joinFolderPath, normalizeFolderPath, ROOT_PATH } from '../../../contract/folders';
import { MAX_IMPORT_REPORT_ITEMS, type ImportFormat } from '../../../contract/imports';
import { openImportFile } from './archive';
import { READERS } from '../../formats';
import { classKey } from './class-names';
import { ImportInputError, type ImportReporter } from '../../formats/reader';

export interface ReadThrough {
  images: number;
  /** classKey of every class the dataset names (declared or used by a shape). */
  classKeys: string[];
  skipped: { file: string; reason: string }[];
  warnings: string[];
  /** Lines past what is handed back, counted. */
  skippedMore: number;
  warningsMore: number;
}

/** The project folder of a dataset's sub-folder below `base`, checked with the folder rules. */
export function importFolderPath(base: string, sub: string | undefined, where: string): string {
  let folder = base || ROOT_PATH;
  for (const part of (sub ?? '').split('/').filter(Boolean)) folder = joinFolderPath(folder, part);
  const checked = normalizeFolderPath(folder);
  if ('error' in checked) throw new ImportInputError(`${where}: its folder "${(sub ?? '').slice(0, 200)}" cannot be created (${checked.error})`);
  return checked.path;
}

/**
 * Records report lines, each once, at most MAX_IMPORT_REPORT_ITEMS of each (the importer's report
 * keeps no more), counting the rest: the counts are what the import's report says past its lists.
 */
function recorder(out: ReadThrough): ImportReporter {
  const seen = new Set<string>();
  const once = (key: string) => !seen.has(key) && Boolean(seen.add(key));
  return {
    skip: (file, reason) => {
      if (!once(`s\u0000${file}\u0000${reason}`)) return;
      if (out.skipped.length < MAX_IMPORT_REPORT_ITEMS) out.skipped.push({ file, reason });
      else out.skippedMore += 1;
    },
    warn: (message) => {
      if (!once(`w\u0000${message}`)) return;
      if (out.warnings.length < MAX_IMPORT_REPORT_ITEMS) out.warnings.push(message);
      else out.warningsMore += 1;
    },
  };
}

/**
 * Reads the uploaded file at `file` (named `filename`) through the `format` reader. Throws an
 * ImportInputError for input that ends the import (its message names the file and the limit).
 */
export async function readThrough(file: string, filename: string, format: ImportFormat, folderPath: string, tmpDir: string): Promise<ReadThrough> {
  const out: ReadThrough = { images: 0, classKeys: [], skipped: [], warnings: [], skippedMore: 0, warningsMore: 0 };
  const report = recorder(out);
  const archive = await openImportFile(file, filename, report);
  try {
    const reader = READERS.find((x) => x.format === format)!;
    const data = await reader.read(archive, { report, tmpDir });
    const classes = new Set(data.classes.map((c) => classKey(c.name)));
    for (const f of data.folders ?? []) importFolderPath(folderPath, f, 'the dataset');
    for await (const img of data.images) {
      if (img.entry) importFolderPath(folderPath, img.folder, img.entry);
      for (const a of img.annotations) classes.add(classKey(a.class));
      out.images += 1;
    }
    out.classKeys = [...classes];
    return out;
  } finally {
    archive.close();
  }
}
