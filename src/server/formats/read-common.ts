// What the format readers share: archive paths, finding an image's bytes in the archive, text
// files, numbers and attributes.
import type { ImportArchive, NamedAttribute, ImportReporter } from './reader';

/** Extensions of the files a reader treats as images (the importer checks the bytes themselves). */
export const IMAGE_EXTENSIONS = new Set(['jpg', 'jpeg', 'png', 'gif', 'webp', 'bmp', 'tif', 'tiff', 'svg', 'avif']);

export function baseName(p: string): string {
  const i = p.lastIndexOf('/');
  return i < 0 ? p : p.slice(i + 1);
}

/** The folder part of a path, '' at the top. */
export function dirName(p: string): string {
  const i = p.lastIndexOf('/');
  return i < 0 ? '' : p.slice(0, i);
}

/** The lower-case extension without its dot, '' when none. */
export function extOf(p: string): string {
  const b = baseName(p);
  const i = b.lastIndexOf('.');
  return i <= 0 ? '' : b.slice(i + 1).toLowerCase();
}

/** The base name without its extension. */
export function stemOf(p: string): string {
  const b = baseName(p);
  const i = b.lastIndexOf('.');
  return i <= 0 ? b : b.slice(0, i);
}

export function isImagePath(p: string): boolean {
  return IMAGE_EXTENSIONS.has(extOf(p));
}

/** Joins path parts with '/', dropping empty parts, '.' segments and leading './'. */
export function joinPath(...parts: string[]): string {
  return parts
    .flatMap((p) => p.split('/'))
    .filter((s) => s !== '' && s !== '.')
    .join('/');
}

/**
 * The archive's entries looked up by path (exactly, then ignoring case) and its images by base
 * name (when only one image has that name). Holds one string per entry (at most MAX_IMPORT_ENTRIES).
 */
export class EntryIndex {
  private readonly lower = new Map<string, string>();
  /** Image base name (lower case) -> its path, or null when several images share it. */
  private readonly images = new Map<string, string | null>();

  constructor(private readonly archive: ImportArchive) {
    for (const p of archive.paths) {
      const key = p.toLowerCase();
      if (!this.lower.has(key)) this.lower.set(key, p);
      if (isImagePath(p)) {
        const b = baseName(key);
        this.images.set(b, this.images.has(b) ? null : p);
      }
    }
  }

  find(p: string): string | undefined {
    const clean = joinPath(p);
    if (clean === '') return undefined;
    if (this.archive.has(clean)) return clean;
    return this.lower.get(clean.toLowerCase());
  }

  /** The first candidate path present in the archive. */
  first(candidates: readonly string[]): string | undefined {
    for (const c of candidates) {
      const found = this.find(c);
      if (found) return found;
    }
    return undefined;
  }

  /** The only image with this base name anywhere in the archive. */
  imageByBaseName(name: string): string | undefined {
    return this.images.get(baseName(name).toLowerCase()) ?? undefined;
  }
}

/** An entry as UTF-8 text without a byte-order mark. */
export async function readText(archive: ImportArchive, p: string): Promise<string> {
  const text = (await archive.read(p)).toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** The first `bytes` bytes of an entry as text (for detection: never reads a large file whole). */
export async function headText(archive: ImportArchive, p: string, bytes = 64 * 1024): Promise<string> {
  const stream = await archive.open(p);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= bytes) break;
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks).subarray(0, bytes).toString('utf8');
}

/** A finite number from a JSON value or a text ('12.5'); null otherwise. */
export function toNumber(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v.trim());
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

/**
 * An attribute value as Vellum stores it: scalars as they are; arrays and objects as their JSON
 * text, with a warning (Vellum's attribute values are scalars).
 */
export function attributeOf(name: string, value: unknown, where: string, report: ImportReporter): NamedAttribute {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return { name, value };
  if (typeof value === 'number') return { name, value: Number.isFinite(value) ? value : String(value) };
  report.warn(`${where}: attribute "${name}" is not a single value; kept as its JSON text`);
  return { name, value: JSON.stringify(value) ?? null };
}

/** "a, b and 3 more" for messages. */
export function listSome(items: readonly string[], most = 5): string {
  const shown = items.slice(0, most).join(', ');
  return items.length > most ? `${shown} and ${items.length - most} more` : shown;
}

/** A skeleton's point names as a skeleton class needs them: none empty (its 1-based number instead), none twice ignoring case (a repeat gets its number). */
export function uniquePointNames(names: readonly string[]): string[] {
  const seen = new Set<string>();
  return names.map((n, i) => {
    const trimmed = n.trim();
    const name = trimmed === '' ? String(i + 1) : seen.has(trimmed.toLowerCase()) ? `${trimmed} ${i + 1}` : trimmed;
    seen.add(name.toLowerCase());
    return name;
  });
}
