// One dataset import from the browser (issue 17): reserve (POST /projects/{id}/imports), PUT the
// file to the signed URL with its progress, start, then follow the job until it ends. The server
// does the work; leaving the page does not stop it (the project's imports list keeps the report).
import { ImportJob, type ImportFormat } from '../../../../contract/imports';
import { api, request, serverMessage } from '../../../api/client';
import { putFile } from './uploads';

export type ImportPhase =
  | { kind: 'uploading'; loaded: number; total: number }
  /** `importId`: what Cancel import stops. */
  | { kind: 'working'; importId: string; job: ImportJob | null }
  | { kind: 'finished'; job: ImportJob };

export const IMPORT_ACCEPT = '.zip,.json,.xml,application/zip,application/json,application/xml,text/xml';
const POLL_MS = 1000;
const MAX_MISSED_POLLS = 30;

export class ImportFailure extends Error {}

/**
 * Cancels an import (POST /imports/{id}/cancel); what it added stays. A queued one answers
 * 'cancelled'; a running one answers 'running' with cancel_requested, and its poll sees 'cancelled'
 * once the server has finished the images in flight and written the final report.
 */
export function cancelImport(importId: string): Promise<ImportJob> {
  return request('POST', `/imports/${encodeURIComponent(importId)}/cancel`, ImportJob);
}

/** An import that will change no more (a running one asked to cancel has not ended yet). */
export function importEnded(job: ImportJob): boolean {
  return job.status === 'done' || job.status === 'failed' || job.status === 'cancelled';
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), reject(new DOMException('Cancelled', 'AbortError'))), { once: true });
  });
}

/** Runs one import to its end, reporting each phase; resolves with the finished job (done, failed or cancelled). */
export async function runImport(
  input: { projectId: string; file: File; format: 'auto' | ImportFormat; folderPath: string },
  signal: AbortSignal,
  onPhase: (phase: ImportPhase) => void,
): Promise<ImportJob> {
  const { file } = input;
  let importId: string;
  try {
    const created = await api.createImport(input.projectId, { filename: file.name, size: file.size, format: input.format, folder_path: input.folderPath });
    importId = created.import_id;
    onPhase({ kind: 'uploading', loaded: 0, total: file.size });
    await putFile(created.upload_url, file, created.content_type, signal, (loaded) => onPhase({ kind: 'uploading', loaded, total: file.size }));
    await api.startImport(importId);
    // Only a started import can be cancelled: the phase that offers Cancel import begins here.
    onPhase({ kind: 'working', importId, job: null });
  } catch (err) {
    if (signal.aborted) throw err;
    throw new ImportFailure(serverMessage(err, `The import could not start: ${err instanceof Error ? err.message : String(err)}`));
  }
  let misses = 0;
  for (;;) {
    await wait(POLL_MS, signal);
    let job: ImportJob;
    try {
      job = await api.getImport(importId, signal);
      misses = 0;
    } catch (err) {
      if (signal.aborted) throw err;
      // A lost poll is not a failed import: ask again, for a while.
      if (++misses >= MAX_MISSED_POLLS) throw new ImportFailure(serverMessage(err, 'The import is running, but its progress cannot be read; reload the page to see the result'));
      continue;
    }
    if (importEnded(job)) {
      onPhase({ kind: 'finished', job });
      return job;
    }
    onPhase({ kind: 'working', importId, job });
  }
}
