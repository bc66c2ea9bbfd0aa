// Export progress for the dialog: how many images a running export has written, asked by GET
// /annotations/export/progress?project_id&progress_id while the zip streams (the dialog shows it
// with the bytes it has received).
//
// The request names its export with `progress_id`, a random UUID the client makes; entries are
// keyed by project and id, so only members of the export's project (images.export) can read them,
// and an id of another project reads as unknown. They hold three numbers and go 60 s after the
// export ends (done, cancelled or failed), at most MAX_TRACKED at once. In memory: with several
// server processes the answer comes from the one running the export, others say 'unknown' and
// the dialog shows the bytes alone.
import type { AppContext } from '../../context';
import type { ExportProgressResponse, ExportProgressState } from '../../../contract/export';
import { projectInOrg } from '../access';

const KEEP_AFTER_END_MS = 60_000;
const MAX_TRACKED = 10_000;

export interface ExportProgress {
  state: ExportProgressState;
  imageCount: number;
  imagesWritten: number;
}

const tracked = new Map<string, ExportProgress>();
const keyOf = (projectId: string, progressId: string) => `${projectId}:${progressId}`;

/** Starts tracking an export (none when the request has no progress_id, or too many are tracked). */
export function trackExport(projectId: string, progressId: string | undefined, imageCount: number): ExportProgress | null {
  if (!progressId || tracked.size >= MAX_TRACKED) return null;
  const p: ExportProgress = { state: 'running', imageCount, imagesWritten: 0 };
  tracked.set(keyOf(projectId, progressId), p);
  return p;
}

/** The export ended: its last state stays readable for a minute. */
export function endTracking(projectId: string, progressId: string | undefined, p: ExportProgress | null, state: Exclude<ExportProgressState, 'running' | 'unknown'>): void {
  if (!p || !progressId) return;
  p.state = state;
  setTimeout(() => {
    if (tracked.get(keyOf(projectId, progressId)) === p) tracked.delete(keyOf(projectId, progressId));
  }, KEEP_AFTER_END_MS).unref();
}

export async function exportProgress(ctx: AppContext, userId: string, projectId: string, progressId: string): Promise<ExportProgressResponse> {
  await projectInOrg(ctx, userId, projectId, 'images.export');
  const p = tracked.get(keyOf(projectId, progressId));
  if (!p) return { success: true, state: 'unknown', images_written: 0, image_count: null };
  return { success: true, state: p.state, images_written: p.imagesWritten, image_count: p.imageCount };
}
