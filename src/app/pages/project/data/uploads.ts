// Upload queue (spec sections 4 "Drag and drop", 5, 7 "Images", 8, 9): accepted image types only,
// five files at a time: check-filename -> batch upload URLs -> PUT with Content-Type -> register.
// Progress per file and for the batch, cancel, and a summary of uploaded, skipped and failed files.
import { create } from 'zustand';
import { canonicalMime, mimeForFilename } from '../../../../contract/images';
import { api, isApiError } from '../../../api/client';

export const ACCEPTED_TYPES = ['image/jpeg', 'image/jpg', 'image/png', 'image/gif', 'image/webp', 'image/bmp', 'image/svg+xml'] as const;
export const ACCEPT_ATTR = ACCEPTED_TYPES.join(',');
const CONCURRENCY = 5;

export type UploadStatus = 'queued' | 'uploading' | 'done' | 'failed' | 'cancelled';
export interface UploadItem {
  key: number;
  name: string;
  size: number;
  loaded: number;
  status: UploadStatus;
  error: string | null;
  /** The stored name when the server made it unique. */
  storedAs: string | null;
}

interface UploadState {
  active: boolean;
  finished: boolean;
  folderPath: string;
  items: UploadItem[];
  skipped: string[];
  start(input: { projectId: string; orgId: string; folderPath: string; files: File[]; onProgress(): void }): void;
  cancel(): void;
  dismiss(): void;
}

/** The content type to upload with, or null when the file is not an accepted image type. */
export function acceptedType(file: Pick<File, 'name' | 'type'>): string | null {
  const t = file.type.toLowerCase();
  if (t) return (ACCEPTED_TYPES as readonly string[]).includes(t) ? (canonicalMime(t) ?? t) : null;
  return mimeForFilename(file.name);
}

let nextKey = 1;
let controller: AbortController | null = null;

function put(url: string, file: File, contentType: string, signal: AbortSignal, onProgress: (loaded: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    xhr.setRequestHeader('Content-Type', contentType);
    xhr.upload.onprogress = (e) => onProgress(e.loaded);
    xhr.onload = () => (xhr.status >= 200 && xhr.status < 300 ? resolve() : reject(new Error(`Upload failed: ${xhr.status} ${xhr.responseText}`)));
    xhr.onerror = () => reject(new Error('Upload failed: 0 network error'));
    xhr.onabort = () => reject(new DOMException('Cancelled', 'AbortError'));
    signal.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(file);
  });
}

async function dimensions(file: File): Promise<{ width: number | null; height: number | null }> {
  try {
    const bitmap = await createImageBitmap(file);
    const size = { width: bitmap.width, height: bitmap.height };
    bitmap.close();
    return size;
  } catch {
    return { width: null, height: null };
  }
}

function reason(err: unknown, fallback: string): string {
  if (isApiError(err)) return err.error ? `${fallback}: ${err.error}` : err.message;
  return err instanceof Error ? err.message : fallback;
}

export const useUploads = create<UploadState>()((set, get) => {
  const patch = (key: number, change: Partial<UploadItem>) =>
    set({ items: get().items.map((it) => (it.key === key ? { ...it, ...change } : it)) });

  return {
    active: false,
    finished: false,
    folderPath: '/',
    items: [],
    skipped: [],
    start({ projectId, orgId, folderPath, files, onProgress }) {
      if (get().active) return;
      const accepted: { file: File; type: string; item: UploadItem }[] = [];
      const skipped: string[] = [];
      for (const file of files) {
        const type = acceptedType(file);
        if (!type) skipped.push(file.name);
        else accepted.push({ file, type, item: { key: nextKey++, name: file.name, size: file.size, loaded: 0, status: 'queued', error: null, storedAs: null } });
      }
      set({ active: accepted.length > 0, finished: accepted.length === 0, folderPath, items: accepted.map((a) => a.item), skipped });
      if (!accepted.length) return;
      controller = new AbortController();
      const signal = controller.signal;

      const assigned = new Set<string>();
      const run = async () => {
        for (let i = 0; i < accepted.length && !signal.aborted; i += CONCURRENCY) {
          const chunk = accepted.slice(i, i + CONCURRENCY);
          chunk.forEach((c) => patch(c.item.key, { status: 'uploading' }));
          // 1. Unique names from the server; two files of this upload never share one.
          const names: string[] = [];
          for (const c of chunk) {
            let candidate = c.file.name;
            for (let n = 2; ; n += 1) {
              try {
                candidate = (await api.checkFilename(projectId, orgId, candidate)).unique_filename;
              } catch {
                /* keep the candidate; the server still refuses to overwrite */
              }
              if (!assigned.has(candidate.toLowerCase()) || n > 50) break;
              const dot = c.file.name.lastIndexOf('.');
              candidate = dot > 0 ? `${c.file.name.slice(0, dot)}_${n}${c.file.name.slice(dot)}` : `${c.file.name}_${n}`;
            }
            assigned.add(candidate.toLowerCase());
            names.push(candidate);
          }
          if (signal.aborted) break;
          // 2. Signed upload URLs for the chunk.
          let urls: Awaited<ReturnType<typeof api.batchUploadUrls>> | null = null;
          try {
            urls = await api.batchUploadUrls(projectId, orgId, chunk.map((c, j) => ({ filename: names[j], content_type: c.type, folder_path: folderPath })));
          } catch {
            urls = null;
          }
          // 3. PUT and register, five in parallel.
          await Promise.all(
            chunk.map(async (c, j) => {
              const target = urls?.urls.find((u) => u.filename === names[j]) ?? null;
              if (!target) {
                patch(c.item.key, { status: 'failed', error: 'Failed to get upload URL' });
                return;
              }
              try {
                await put(target.upload_url, c.file, c.type, signal, (loaded) => patch(c.item.key, { loaded }));
                const size = await dimensions(c.file);
                await api.registerImage(projectId, orgId, {
                  filename: target.filename,
                  gcs_bucket: target.gcs_bucket,
                  gcs_path: target.gcs_path,
                  gcs_uri: target.gcs_uri,
                  folder_path: folderPath,
                  file_size: c.file.size,
                  mime_type: c.type,
                  ...size,
                });
                patch(c.item.key, { status: 'done', loaded: c.file.size, storedAs: target.filename !== c.file.name ? target.filename : null });
              } catch (err) {
                if (err instanceof DOMException && err.name === 'AbortError') patch(c.item.key, { status: 'cancelled' });
                else patch(c.item.key, { status: 'failed', error: reason(err, 'Failed to register image') });
              }
            }),
          );
          onProgress();
        }
        set({
          active: false,
          finished: true,
          items: get().items.map((it) => (it.status === 'queued' || it.status === 'uploading' ? { ...it, status: 'cancelled' } : it)),
        });
        onProgress();
      };
      void run();
    },
    cancel() {
      controller?.abort();
    },
    dismiss() {
      if (get().active) return;
      set({ finished: false, items: [], skipped: [] });
    },
  };
});
