// The dry run's reading (./run.ts): the whole dataset read once, nothing written. Pure (no
// database, storage or context), so it runs on an offload thread (src/server/offload, task
// `importReadThrough`): parsing a large archive never holds the request thread. What it found is
// handed back as plain values: the number of images, every class name it would need, the folder
// errors, and the report lines to record.
import { joinFolderPath, normalizeFolderPath, ROOT_PATH } from '../../../contract/folders';
import type { ImportFormat } from '../../../contract/imports';
import { openImportFile } from './archive';
import { READERS } from '../../formats';
import { classKey } from './class-names';
import { ImportInputError } from '../../formats/reader';
import { ReportBuilder } from './report';

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
 * Reads the uploaded file at `file` (named `filename`) through the `format` reader. Throws an
 * ImportInputError for input that ends the import (its message names the file and the limit).
 */
export async function readThrough(file: string, filename: string, format: ImportFormat, folderPath: string, tmpDir: string): Promise<ReadThrough> {
  // Each line once, the lists capped as the import's report caps them, the rest counted.
  const report = new ReportBuilder(null);
  const archive = await openImportFile(file, filename, report);
  try {
    const reader = READERS.find((x) => x.format === format)!;
    const data = await reader.read(archive, { report, tmpDir });
    const classes = new Set(data.classes.map((c) => classKey(c.name)));
    for (const f of data.folders ?? []) importFolderPath(folderPath, f, 'the dataset');
    let images = 0;
    for await (const img of data.images) {
      if (img.entry) importFolderPath(folderPath, img.folder, img.entry);
      for (const a of img.annotations) classes.add(classKey(a.class));
      images += 1;
    }
    const { skipped, warnings, skipped_more: skippedMore, warnings_more: warningsMore } = report.report;
    return { images, classKeys: [...classes], skipped, warnings, skippedMore, warningsMore };
  } finally {
    archive.close();
  }
}
