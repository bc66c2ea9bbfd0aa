// The dataset formats, looked up by import and export (each format's folder holds its read.ts and
// write.ts; see ./README.md).
//
// READERS is in the order auto-detection tries them. The order matters because the formats
// overlap: a Vellum export holds JSON files (vellum.json first), a CVAT zip can carry a
// data.yaml-free images/ folder, VOC's Annotations/*.xml are XML like CVAT's, and any .json file
// might be COCO (tried last, after the formats with a file of their own name):
//   vellum  vellum.json with format 'vellum'
//   cvat    an .xml (annotations.xml first, not under Annotations/) whose root is <annotations>
//   voc     Annotations/*.xml
//   yolo    data.yaml / data.yml (Ultralytics) or obj.names (Darknet)
//   coco    instances_*.json, person_keypoints_*.json, _annotations.coco.json, or a .json with
//           images / annotations / categories lists near its start
//
// WRITERS: one per export format (CVAT is read only). Writers are loaded when an export asks for
// them, so the import's read-through thread (pure, no database) never loads them.
import type { ExportFormat } from '../../contract/export';
import type { ImportFormat } from '../../contract/imports';
import type { FormatReader, ImportArchive } from './reader';
import type { FormatWriter, RunState } from './write-common';
import { cocoReader } from './coco/read';
import { cvatReader } from './cvat/read';
import { vellumReader } from './vellum/read';
import { vocReader } from './voc/read';
import { yoloReader } from './yolo/read';

export const READERS: FormatReader[] = [vellumReader, cvatReader, vocReader, yoloReader, cocoReader];

/** The first format whose reader recognises the archive, or null. */
export async function detectFormat(archive: ImportArchive): Promise<ImportFormat | null> {
  for (const reader of READERS) if (await reader.detect(archive)) return reader.format;
  return null;
}

export interface WriterEntry {
  /** The format's name in messages ('Pascal VOC'). */
  name: string;
  /** Whether its geometry needs the wasm kernels: COCO rasterises polygons with holes, YOLO traces masks. */
  needsKernels: boolean;
  create(s: RunState): Promise<FormatWriter>;
}

export const WRITERS: Record<ExportFormat, WriterEntry> = {
  vellum: { name: 'Vellum', needsKernels: false, create: async (s) => new (await import('./vellum/write')).VellumWriter(s) },
  coco: { name: 'COCO', needsKernels: true, create: async (s) => new (await import('./coco/write')).CocoWriter(s) },
  yolo: { name: 'YOLO', needsKernels: true, create: async (s) => (await import('./yolo/write')).YoloWriter.create(s) },
  voc: { name: 'Pascal VOC', needsKernels: false, create: async (s) => (await import('./voc/write')).VocWriter.create(s) },
};
