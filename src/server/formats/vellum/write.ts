// Vellum's own export layout, lossless, for a later import:
//   annotations/<folder path>/<filename>.json   {image, annotations (exactly as stored), version}
//   vellum.json                                 manifest: project, classes, folders, counts
//   images/<folder path>/<filename>             only with include_images
// With a split (request `split`), each image record carries `split` ('train', 'val' or 'test') and
// vellum.json the split's settings and counts; the layout is the same.
import { asc, eq } from 'drizzle-orm';
import { folders } from '../../db/schema';
import { VELLUM_EXPORT_VERSION } from '../../../contract/export';
import type { ImageRow } from '../../services/images';
import { splitOf, type FormatWriter, type RunState } from '../write-common';
import type { SplitName } from '../../../contract/export';

export function vellumImageDocument(image: ImageRow, annotations: unknown[], version: number, split: SplitName | null = null) {
  return {
    image: {
      id: image.id,
      filename: image.filename,
      folder: image.virtualFolderPath,
      width: image.imageWidth,
      height: image.imageHeight,
      status: image.status,
      is_edited: image.isEdited,
      is_archived: image.isArchived,
      mime_type: image.mimeType,
      file_size: image.fileSize,
      ...(split ? { split } : {}),
    },
    annotations,
    version,
  };
}

export class VellumWriter implements FormatWriter {
  constructor(private readonly s: RunState) {}

  imagePath(_image: ImageRow, rel: string): string {
    return `images/${rel}`;
  }

  async image(image: ImageRow, rel: string, annotations: Record<string, unknown>[], version: number): Promise<void> {
    const { s } = this;
    s.report.annotations += annotations.length;
    await s.sink.addText(`annotations/${rel}.json`, JSON.stringify(vellumImageDocument(image, annotations, version, splitOf(s, image)), null, 2));
  }

  async finish(): Promise<void> {
    await this.s.sink.addText('vellum.json', JSON.stringify(await this.manifest(), null, 2));
  }

  private async manifest() {
    const s = this.s;
    const folderRows = await s.ctx.db.select({ path: folders.fullPath, name: folders.name }).from(folders).where(eq(folders.projectId, s.project.id)).orderBy(asc(folders.fullPath));
    return {
      format: 'vellum',
      version: VELLUM_EXPORT_VERSION,
      exported_at: new Date().toISOString(),
      name: s.name,
      project: {
        name: s.project.name,
        description: s.project.description,
        classes: s.project.classes
          .filter((c) => !s.classFilter || s.classFilter.has(c.name))
          .map(({ name, type, color, tools, kind, skeleton, attributes, keypoints }) => ({
            name,
            ...(type ? { type } : {}),
            color,
            ...(tools ? { tools } : {}),
            ...(kind ? { kind, skeleton } : {}),
            ...(attributes?.length ? { attributes } : {}),
            ...(keypoints?.length ? { keypoints } : {}),
          })),
        annotation_types: s.project.annotationTypes,
      },
      folders: folderRows.map((f) => f.path),
      scope: s.scope,
      class_filter: s.classFilter ? [...s.classFilter] : null,
      include_images: s.includeImages,
      split: s.split ? { names: s.split.names, seed: s.split.seed, stratify: s.split.stratify, counts: Object.fromEntries(s.split.names.map((n) => [n, s.split!.counts[n]])) } : null,
      image_count: s.report.images,
      annotation_count: s.report.annotations,
    };
  }

  readme(): string[] {
    return [
      'Layout: vellum.json (manifest: project, classes, folders, counts)',
      '        annotations/<folder path>/<filename>.json ({image, annotations exactly as stored, version})',
      '        images/<folder path>/<filename> (when image files are included)',
      ...(this.s.split ? ['Each image record has its split ("split": "train", "val" or "test").'] : []),
    ];
  }
}
