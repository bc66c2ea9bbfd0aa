// How a save reaches the server: save-changes (or save-data for a whole list) and batch-save-data,
// each answer turned into an outcome the manager acts on (saved, conflict, retry later, sign-in
// needed, refused).
import { BatchSaveResponse, ChangesResponse, LoadDataResponse, SaveDataResponse, type SaveChangesRequest, type SaveDataRequest } from '../../../contract/annotation-api';
import { statusOfCode } from '../../../contract/errors';
import { ApiRequestError, apiFetch, authHeaders } from '../../api/client';
import { getSupabase, onSessionRenewed } from '../../api/supabase';

export type SaveOutcome =
  /** Saved; `res.rebased_from` / `res.changes`: applied on a newer version than the base, with what it skipped. */
  | { kind: 'saved'; res: SaveDataResponse }
  /** A stale base: what changed since it, and the whole document while it is small (the server sends at least one). */
  | { kind: 'conflict'; current?: LoadDataResponse; changes?: ChangesResponse }
  /** 429, 503 (or another 5xx) and network failures (status null): worth trying again. */
  | { kind: 'retry'; status: number | null; message: string }
  | { kind: 'auth'; message: string }
  /** 400, 403, 404, 413: trying the same body again will not help. */
  | { kind: 'refused'; status: number; message: string };

/** Changes on a version (save-changes), or a whole list (save-data): batch-save-data takes both as entries. The manager sends changes. */
export type SaveBody = SaveChangesRequest | SaveDataRequest;

export const isWholeSave = (body: SaveBody): body is SaveDataRequest => 'annotations' in body;

export interface SaveTransport {
  save(body: SaveBody, opts?: { keepalive?: boolean }): Promise<SaveOutcome>;
  /** One outcome per body, in order. */
  saveBatch(bodies: SaveBody[], opts?: { keepalive?: boolean }): Promise<SaveOutcome[]>;
  /** Refreshes the session; false when the user must sign in again. */
  refreshAuth(): Promise<boolean>;
  /** load-data, for work left on the device for an image the screen has not opened; null when it cannot be loaded now. */
  load(imageId: string, projectId: string): Promise<LoadDataResponse | null>;
}

/** Chromium refuses keepalive bodies over 64 KiB in total; bigger saves go as plain requests (IndexedDB holds them anyway). */
const KEEPALIVE_LIMIT = 60 * 1024;

/**
 * How long a save request may go unanswered before it counts as a network failure (tried again
 * later, and, should it land after all, a save applied with its answer lost, which the manager
 * handles): 30 s, and 1 s more per 100 KB it carries (an 8 MB save on a slow uplink). Without it a
 * request that never answered (a dead connection the browser had not noticed) held that image's
 * saves, and its opening again in the tab, for as long as it hung (tests/api/live-chaos.test.ts).
 */
export const saveTimeoutMs = (bytes: number): number => 30_000 + Math.ceil(bytes / 100);

export function outcomeOf(status: number, body: string): SaveOutcome {
  const err = new ApiRequestError(status, body);
  const message = err.error ?? `The server answered ${status}`;
  if (status === 409 && err.code === 'version_conflict') {
    const conflict = conflictOf(err.data?.current, err.data?.changes);
    if (conflict) return conflict;
  }
  if (status === 401) return { kind: 'auth', message };
  if (status === 429 || status >= 500) return { kind: 'retry', status, message };
  return { kind: 'refused', status, message };
}

function conflictOf(current: unknown, changes: unknown): SaveOutcome | null {
  const c = LoadDataResponse.safeParse(current);
  const ch = ChangesResponse.safeParse(changes);
  if (!c.success && !ch.success) return null;
  return { kind: 'conflict', ...(c.success && { current: c.data }), ...(ch.success && { changes: ch.data }) };
}

export function createHttpTransport(opts: { timeoutMs?: (bytes: number) => number } = {}): SaveTransport {
  const timeoutMs = opts.timeoutMs ?? saveTimeoutMs;
  let lastHeaders: Record<string, string> | null = null;

  const headers = async (): Promise<Record<string, string>> => {
    try {
      // authHeaders' getSession refreshes an expired access token through supabase-js.
      const h: Record<string, string> = { accept: 'application/json', 'content-type': 'application/json', ...(await authHeaders()) };
      lastHeaders = h;
      return h;
    } catch (err) {
      // Offline before the configuration loaded: reuse what worked last time.
      if (lastHeaders) return lastHeaders;
      throw err;
    }
  };
  // The keepalive save takes the cached headers: they follow each renewed session, not only this
  // transport's requests (after a token refresh and no save since, the page-hide save carried the
  // old token, expired by then: 401, and the work stayed on the device).
  onSessionRenewed(() => void headers().catch(() => undefined));

  const post = async (path: string, payload: unknown, keepalive: boolean): Promise<{ status: number; text: string } | { error: string }> => {
    let timeout: { ms: number; signal: AbortSignal } | null = null;
    try {
      const body = JSON.stringify(payload);
      // A page being hidden may never resume: do not wait for a token lookup if one is cached.
      const h = keepalive && lastHeaders ? lastHeaders : await headers();
      // The limit is in bytes: a class name outside ASCII takes several per character.
      const small = body.length < KEEPALIVE_LIMIT / 3 || new TextEncoder().encode(body).byteLength < KEEPALIVE_LIMIT;
      // A keepalive request outlives the page: nothing here waits for it, so it is not timed.
      if (!keepalive) {
        const ms = timeoutMs(body.length);
        timeout = { ms, signal: AbortSignal.timeout(ms) };
      }
      const res = await apiFetch(`/api/v1/annotations/${path}`, { method: 'POST', headers: h, body, keepalive: keepalive && small, signal: timeout?.signal });
      return { status: res.status, text: await res.text() };
    } catch (err) {
      if (timeout?.signal.aborted) return { error: `The server did not answer within ${Math.round(timeout.ms / 1000)} s` };
      return { error: err instanceof Error ? err.message : String(err) };
    }
  };

  return {
    async save(body, opts) {
      const r = await post(isWholeSave(body) ? 'save-data' : 'save-changes', body, !!opts?.keepalive);
      if ('error' in r) return { kind: 'retry', status: null, message: r.error };
      if (r.status !== 200) return outcomeOf(r.status, r.text);
      const parsed = SaveDataResponse.safeParse(JSON.parse(r.text));
      return parsed.success ? { kind: 'saved', res: parsed.data } : { kind: 'retry', status: r.status, message: 'Unexpected answer from the server' };
    },
    async saveBatch(bodies, opts) {
      const r = await post('batch-save-data', { saves: bodies }, !!opts?.keepalive);
      if ('error' in r) return bodies.map(() => ({ kind: 'retry', status: null, message: r.error }));
      if (r.status !== 200) return bodies.map(() => outcomeOf(r.status, r.text));
      const parsed = BatchSaveResponse.safeParse(JSON.parse(r.text));
      if (!parsed.success) return bodies.map(() => ({ kind: 'retry', status: r.status, message: 'Unexpected answer from the server' }));
      return parsed.data.results.map((x): SaveOutcome => {
        if (x.status === 'saved') {
          return {
            kind: 'saved',
            res: {
              success: true,
              version: x.version ?? 0,
              saved_at: x.saved_at ?? new Date().toISOString(),
              status_updated: !!x.status_updated,
              new_count: x.new_count ?? 0,
              status: x.image_status ?? 'annotating',
              // A change-only entry the server applied on a newer version: what it skipped comes along.
              ...(x.rebased_from !== undefined && { rebased_from: x.rebased_from, ...(x.changes && { changes: x.changes }) }),
            },
          };
        }
        const conflict = x.status === 'conflict' ? conflictOf(x.current, x.changes) : null;
        if (conflict) return conflict;
        return { kind: 'refused', status: statusOfCode(x.code ?? 'bad_request'), message: x.error ?? 'The save was refused' };
      });
    },
    async load(imageId, projectId) {
      try {
        const res = await apiFetch(`/api/v1/annotations/load-data/${encodeURIComponent(imageId)}?project_id=${encodeURIComponent(projectId)}`, { headers: await headers() });
        if (!res.ok) return null;
        const parsed = LoadDataResponse.safeParse(await res.json());
        return parsed.success ? parsed.data : null;
      } catch (_err) {
        return null;
      }
    },
    async refreshAuth() {
      try {
        const { data, error } = await (await getSupabase()).auth.refreshSession();
        return !error && !!data.session;
      } catch (_err) {
        return false;
      }
    },
  };
}
