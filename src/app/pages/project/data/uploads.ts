// Upload queue (spec sections 4 "Drag and drop", 5, 7 "Images", 8, 9): accepted image types only,
// a pool of five files in flight (the next starts as soon as one ends), each going
// check-filename -> upload URL -> PUT with Content-Type -> register.
// Progress per file and for the batch, cancel, and a summary of uploaded, skipped and failed files.
import { create } from 'zustand';
import { canonicalMime, mimeForFilename } from '../../../../contract/images';
import { api, isApiError } from '../../../api/client';
import { runPool } from '../../../lib/pool';

export const ACCEPTED_TYPES = ['image/jpeg', 'image/jpg', 'image/png', 'image/gif', 'image/webp', 'image/bmp', 'image/svg+xml'] as const;
export const ACCEPT_ATTR = ACCEPTED_TYPES.join(',');
/** Files in flight at once (spec section 9). */
export const CONCURRENCY = 5;
const REFRESH_MS = 1000;

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

/** PUTs a file to a signed URL, reporting the bytes sent (XMLHttpRequest: fetch cannot report upload progress). */
export function putFile(url: string, file: File, contentType: string, signal: AbortSignal, onProgress: (loaded: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    // Removed when the PUT settles: one batch's signal outlives thousands of files.
    const abort = () => xhr.abort();
    const settle = (fn: () => void) => {
      signal.removeEventListener('abort', abort);
      fn();
    };
    xhr.open('PUT', url);
    xhr.setRequestHeader('Content-Type', contentType);
    xhr.upload.onprogress = (e) => onProgress(e.loaded);
    xhr.onload = () => settle(() => (xhr.status >= 200 && xhr.status < 300 ? resolve() : reject(new Error(`Upload failed: ${xhr.status} ${xhr.responseText}`))));
    xhr.onerror = () => settle(() => reject(new Error('Upload failed: 0 network error')));
    xhr.onabort = () => settle(() => reject(new DOMException('Cancelled', 'AbortError')));
    signal.addEventListener('abort', abort, { once: true });
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
      const aborted = () => new DOMException('Cancelled', 'AbortError');
      // The list reloads as files land, at most once a second (a big batch would reload per file).
      let lastRefresh = 0;
      let refreshTimer: ReturnType<typeof setTimeout> | null = null;
      const refresh = () => {
        if (refreshTimer) return;
        const wait = Math.max(0, lastRefresh + REFRESH_MS - Date.now());
        refreshTimer = setTimeout(() => {
          refreshTimer = null;
          lastRefresh = Date.now();
          onProgress();
        }, wait);
      };

      // One file, start to end: unique name -> upload URL -> PUT -> register. Failures stay with
      // the file; the pool goes on with the rest.
      const uploadOne = async ({ file, type, item }: (typeof accepted)[number]) => {
        patch(item.key, { status: 'uploading' });
        try {
          // 1. A unique name from the server; two files of this upload never share one (the
          //    check and the claim below run without an await between them).
          let candidate = file.name;
          for (let n = 2; ; n += 1) {
            try {
              candidate = (await api.checkFilename(projectId, orgId, candidate)).unique_filename;
            } catch {
              /* keep the candidate; the server still refuses to overwrite */
            }
            if (signal.aborted) throw aborted();
            if (!assigned.has(candidate.toLowerCase()) || n > 50) break;
            const dot = file.name.lastIndexOf('.');
            candidate = dot > 0 ? `${file.name.slice(0, dot)}_${n}${file.name.slice(dot)}` : `${file.name}_${n}`;
          }
          assigned.add(candidate.toLowerCase());
          // 2. Its signed upload URL.
          let target: Awaited<ReturnType<typeof api.uploadUrl>>;
          try {
            target = await api.uploadUrl(projectId, orgId, { filename: candidate, content_type: type, folder_path: folderPath });
          } catch (err) {
            // Spec section 8's text for this file only, with the server's reason when it gave one.
            patch(item.key, { status: 'failed', error: isApiError(err) && err.error ? `Failed to get upload URL: ${err.error}` : 'Failed to get upload URL' });
            return;
          }
          if (signal.aborted) throw aborted();
          // 3. PUT, then register.
          await putFile(target.upload_url, file, type, signal, (loaded) => patch(item.key, { loaded }));
          const size = await dimensions(file);
          await api.registerImage(projectId, orgId, {
            filename: target.filename,
            gcs_bucket: target.gcs_bucket,
            gcs_path: target.gcs_path,
            gcs_uri: target.gcs_uri,
            folder_path: folderPath,
            file_size: file.size,
            mime_type: type,
            ...size,
          });
          patch(item.key, { status: 'done', loaded: file.size, storedAs: target.filename !== file.name ? target.filename : null });
          refresh();
        } catch (err) {
          if (err instanceof DOMException && err.name === 'AbortError') patch(item.key, { status: 'cancelled' });
          else patch(item.key, { status: 'failed', error: reason(err, 'Failed to register image') });
        }
      };

      void runPool(accepted, CONCURRENCY, uploadOne, signal).then(() => {
        if (refreshTimer) clearTimeout(refreshTimer);
        // Files that never started (cancelled before their turn) are cancelled too.
        set({
          active: false,
          finished: true,
          items: get().items.map((it) => (it.status === 'queued' || it.status === 'uploading' ? { ...it, status: 'cancelled' } : it)),
        });
        onProgress();
      });
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
