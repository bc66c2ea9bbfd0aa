// Vellum's own export zip (services/export/index.ts, ./write.ts), read back losslessly:
//   vellum.json                                 manifest: project classes (name, type, colour), folders
//   annotations/<folder path>/<filename>.json   {image: {filename, folder, width, height, status, ...}, annotations, version}
//   images/<folder path>/<filename>             when the export included the image files
// Each image's annotations are handed over exactly as stored (ImportedImage.stored, ids kept; the
// importer validates them), with its status, archive flag and folder. One image document is read at a time.
// The zip may sit inside one top folder (vellum.json is looked for at the shallowest level).
//
// Decisions:
// - Folders (Vellum paths '/a/b') become paths relative to the import's folder ('a/b'); every
//   folder of the manifest is listed in DatasetRead.folders, so empty ones are created too.
// - A manifest of a newer layout version than this server's VELLUM_EXPORT_VERSION is refused.
// - An image document that is malformed JSON ends the import (file and line); one without an
//   image filename or an annotations list is skipped with its reason; an unknown status is left
//   out with a warning (the importer's default applies).
// - Image files under images/ without a document are yielded last, without annotations.
import { VELLUM_EXPORT_VERSION } from '../../../contract/export';
import { IMAGE_STATUSES, type ImageStatus } from '../../../contract/images';
import { ANNOTATION_TYPES, ProjectClass, type AnnotationType } from '../../../contract/projects';
import { ImportInputError, type DatasetRead, type FormatReader, type ImportArchive, type ImportedClass, type ImportedImage, type ReadOptions } from '../reader';
import { baseName, dirName, extOf, isImagePath, joinPath, toNumber } from '../read-common';
import { parseJsonEntry } from '../json-scan';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function manifestPath(archive: ImportArchive): string | undefined {
  return archive.paths
    .filter((p) => baseName(p) === 'vellum.json')
    .sort((a, b) => a.split('/').length - b.split('/').length)[0];
}

/** '/a/b' -> 'a/b', '/' -> ''. */
function relativeFolder(v: unknown): string {
  return typeof v === 'string' ? joinPath(v) : '';
}

function classesOf(manifest: Record<string, unknown>, options: ReadOptions): ImportedClass[] {
  const project = isRecord(manifest.project) ? manifest.project : {};
  const raw = Array.isArray(project.classes) ? project.classes : [];
  const out: ImportedClass[] = [];
  for (const c of raw) {
    if (!isRecord(c) || typeof c.name !== 'string' || c.name.trim() === '') {
      options.report.warn(`vellum.json: a class without a name was left out`);
      continue;
    }
    const cls: ImportedClass = { name: c.name };
    if (typeof c.type === 'string' && (ANNOTATION_TYPES as readonly string[]).includes(c.type)) cls.type = c.type as AnnotationType;
    if (typeof c.color === 'string' && /^#[0-9a-fA-F]{6}$/.test(c.color)) cls.color = c.color;
    // The tools that may draw it, and a skeleton class's points and edges (issue 33), checked by the class schema.
    if (c.tools !== undefined) {
      const tools = ProjectClass.shape.tools.safeParse(c.tools);
      if (tools.success && tools.data) cls.tools = tools.data;
      else options.report.warn(`vellum.json: the tools of class "${c.name.slice(0, 100)}" were left out`);
    }
    if (c.kind === 'skeleton') {
      const skeleton = ProjectClass.shape.skeleton.safeParse(c.skeleton);
      if (skeleton.success && skeleton.data) cls.skeleton = skeleton.data;
      else options.report.warn(`vellum.json: the skeleton of class "${c.name.slice(0, 100)}" was left out (${skeleton.success ? 'missing' : (skeleton.error.issues[0]?.message ?? 'invalid')})`);
    }
    if (c.attributes !== undefined) {
      const defs = ProjectClass.shape.attributes.safeParse(c.attributes);
      if (defs.success) {
        if (defs.data?.length) cls.attributes = defs.data;
      } else options.report.warn(`vellum.json: the attribute definitions of class "${c.name.slice(0, 100)}" were left out (${defs.error.issues[0]?.message ?? 'invalid'})`);
    }
    if (c.keypoints !== undefined) {
      // A keypoint class's point names in order (from a COCO import), so a COCO export after this round trip keeps them.
      const names = ProjectClass.shape.keypoints.safeParse(c.keypoints);
      if (names.success) {
        if (names.data?.length) cls.keypoints = names.data;
      } else options.report.warn(`vellum.json: the keypoint names of class "${c.name.slice(0, 100)}" were left out (${names.error.issues[0]?.message ?? 'invalid'})`);
    }
    out.push(cls);
  }
  return out;
}

async function* imagesOf(archive: ImportArchive, root: string, docs: string[], options: ReadOptions): AsyncGenerator<ImportedImage> {
  const used = new Set<string>();
  for (const file of docs) {
    options.signal?.throwIfAborted();
    const doc = await parseJsonEntry(archive, file);
    const image = isRecord(doc) && isRecord(doc.image) ? doc.image : null;
    const fileName = image && typeof image.filename === 'string' ? image.filename : '';
    if (!image || fileName === '' || fileName.includes('/')) {
      options.report.skip(file, 'not a Vellum image document (no image.filename)');
      continue;
    }
    const annotations = (doc as Record<string, unknown>).annotations;
    if (!Array.isArray(annotations)) {
      options.report.skip(file, 'not a Vellum image document (annotations is not a list)');
      continue;
    }
    const folder = relativeFolder(image.folder);
    const entry = joinPath(root, 'images', folder, fileName);
    const present = archive.has(entry);
    if (present) used.add(entry);
    let status: ImageStatus | undefined;
    if ((IMAGE_STATUSES as readonly unknown[]).includes(image.status)) status = image.status as ImageStatus;
    else if (image.status !== undefined) options.report.warn(`${file}: unknown status ${JSON.stringify(image.status)} left out`);
    const width = toNumber(image.width);
    const height = toNumber(image.height);
    yield {
      fileName,
      ...(present ? { entry } : {}),
      folder,
      ...(width && width > 0 ? { width } : {}),
      ...(height && height > 0 ? { height } : {}),
      ...(status ? { status } : {}),
      ...(typeof image.is_archived === 'boolean' ? { archived: image.is_archived } : {}),
      annotations: [],
      stored: annotations,
    };
  }
  const imagesDir = joinPath(root, 'images');
  for (const p of archive.paths) {
    if (!isImagePath(p) || used.has(p) || !p.startsWith(`${imagesDir}/`)) continue;
    yield { fileName: baseName(p), entry: p, folder: dirName(p.slice(imagesDir.length + 1)), annotations: [] };
  }
}

export const vellumReader: FormatReader = {
  format: 'vellum',
  async detect(archive) {
    const manifest = manifestPath(archive);
    if (!manifest || archive.size(manifest) > 16 * 1024 * 1024) return false;
    try {
      const doc = await parseJsonEntry(archive, manifest);
      return isRecord(doc) && doc.format === 'vellum';
    } catch {
      return false;
    }
  },
  async read(archive, options): Promise<DatasetRead> {
    const manifestFile = manifestPath(archive);
    if (!manifestFile) throw new ImportInputError('Not a Vellum export: vellum.json is missing');
    const manifest = await parseJsonEntry(archive, manifestFile);
    if (!isRecord(manifest) || manifest.format !== 'vellum') throw new ImportInputError(`${manifestFile}: not a Vellum export manifest (format is not "vellum")`);
    const version = toNumber(manifest.version);
    if (version === null || version > VELLUM_EXPORT_VERSION) {
      throw new ImportInputError(`${manifestFile}: layout version ${String(manifest.version)} is not one this server reads (up to ${VELLUM_EXPORT_VERSION})`);
    }
    const root = dirName(manifestFile);
    const annotationsDir = joinPath(root, 'annotations');
    const docs = archive.paths.filter((p) => p.startsWith(`${annotationsDir}/`) && extOf(p) === 'json');
    const folders = Array.isArray(manifest.folders) ? manifest.folders.map(relativeFolder).filter((f) => f !== '') : [];
    return { classes: classesOf(manifest, options), folders, total: docs.length, images: imagesOf(archive, root, docs, options) };
  },
};
