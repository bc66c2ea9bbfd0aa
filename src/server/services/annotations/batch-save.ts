// POST batch-save-data: many saves in one call, each on its own.
import type { AppContext } from '../../context';
import { ApiError, errors } from '../../errors';
import { describePath } from '../../../contract/annotation-check';
import { MAX_SAVE_BYTES, SaveChangesRequest, SaveDataRequest, type BatchSaveResult, type ChangesResponse, type LoadDataResponse } from '../../../contract/annotation-api';
import { saveChanges, saveData } from './save';

/** Every save on its own: a bad, conflicting or forbidden one fails alone. */
export async function batchSave(ctx: AppContext, userId: string, saves: unknown[]): Promise<{ success: true; saved: number; failed: number; results: BatchSaveResult[] }> {
  const results: BatchSaveResult[] = [];
  for (const [i, raw] of saves.entries()) {
    const imageId = raw && typeof raw === 'object' && typeof (raw as { image_id?: unknown }).image_id === 'string' ? (raw as { image_id: string }).image_id : null;
    try {
      const full = Boolean(raw && typeof raw === 'object' && 'annotations' in raw);
      const parsed = (full ? SaveDataRequest : SaveChangesRequest).safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        const where = describePath(issue.path);
        throw errors.badRequest(`Save ${i}: ${where ? `${where}: ` : ''}${issue.message}`, 'validation_failed');
      }
      if (Buffer.byteLength(JSON.stringify(parsed.data)) > MAX_SAVE_BYTES) {
        throw errors.tooLarge(`Save ${i}: the annotations are larger than ${MAX_SAVE_BYTES / 1024 / 1024} MB`);
      }
      const saved = full ? await saveData(ctx, userId, parsed.data as SaveDataRequest) : await saveChanges(ctx, userId, parsed.data as SaveChangesRequest, { rebase: true });
      results.push({
        image_id: imageId,
        status: 'saved',
        version: saved.version,
        saved_at: saved.saved_at,
        status_updated: saved.status_updated,
        image_status: saved.status,
        new_count: saved.new_count,
        ...(saved.rebased_from !== undefined && { rebased_from: saved.rebased_from }),
        ...(saved.changes && { changes: saved.changes }),
      });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (err.code === 'version_conflict') {
        results.push({ image_id: imageId, status: 'conflict', error: err.message, code: err.code, current: err.extra.current as LoadDataResponse | undefined, changes: err.extra.changes as ChangesResponse | undefined });
      } else {
        results.push({ image_id: imageId, status: 'error', error: err.message, code: err.code });
      }
    }
  }
  const saved = results.filter((r) => r.status === 'saved').length;
  return { success: true, saved, failed: results.length - saved, results };
}
