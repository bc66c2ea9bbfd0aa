// The format readers, in detection order: the first whose detect() says yes reads an archive
// whose format was not given. More specific layouts come first (a Vellum export also holds JSON).
import type { ImportFormat } from '../../../../contract/imports';
import type { FormatReader, ImportArchive } from '../types';
import { cocoReader } from './coco';
import { yoloReader } from './yolo';

export const READERS: FormatReader[] = [yoloReader, cocoReader];

export async function detectFormat(archive: ImportArchive): Promise<ImportFormat | null> {
  for (const r of READERS) if (await r.detect(archive)) return r.format;
  return null;
}
