// The format readers, in the order auto-detection tries them. The order matters because the
// formats overlap: a Vellum export holds JSON files (vellum.json first), a CVAT zip can carry a
// data.yaml-free images/ folder, VOC's Annotations/*.xml are XML like CVAT's, and any .json file
// might be COCO (tried last, after the formats with a file of their own name):
//   vellum  vellum.json with format 'vellum'
//   cvat    an .xml (annotations.xml first, not under Annotations/) whose root is <annotations>
//   voc     Annotations/*.xml
//   yolo    data.yaml / data.yml (Ultralytics) or obj.names (Darknet)
//   coco    instances_*.json, person_keypoints_*.json, _annotations.coco.json, or a .json with
//           images / annotations / categories lists near its start
import type { ImportFormat } from '../../../../contract/imports';
import type { FormatReader, ImportArchive } from '../types';
import { cocoReader } from './coco';
import { cvatReader } from './cvat';
import { vellumReader } from './vellum';
import { vocReader } from './voc';
import { yoloReader } from './yolo';

export const READERS: FormatReader[] = [vellumReader, cvatReader, vocReader, yoloReader, cocoReader];

/** The first format whose reader recognises the archive, or null. */
export async function detectFormat(archive: ImportArchive): Promise<ImportFormat | null> {
  for (const reader of READERS) if (await reader.detect(archive)) return reader.format;
  return null;
}
