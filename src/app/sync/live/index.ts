// The app's one live co-editing client (./client.ts): the browser's WebSocket to /api/v1/live on
// this origin, the supabase session's access token, and GET changes through the API client.
import { ChangesResponse } from '../../../contract/annotation-api';
import { LIVE_PATH } from '../../../contract/live';
import { isApiError, request } from '../../api/client';
import { getSupabase, onSessionRenewed } from '../../api/supabase';
import { LiveClient, changeOfResponse, type FetchChanges, type LiveDeps, type LiveSocket } from './client';

export { LiveClient, changeOfResponse } from './client';
export type { ApplyResult, LiveChange, LiveDeps, LiveImageHandler, LivePresenceHandler, PeerOverlap, LivePresenceWatch, LiveSocket, ProjectChangeReason } from './client';
export { EMPTY_WATCHED, watchedFrom, withPresence, type WatchedPeople } from './watchedPeople';

/** ws: or wss: as the page's own scheme, on the page's host. */
export function liveUrl(loc: { protocol: string; host: string } = window.location): string {
  return `${loc.protocol === 'https:' ? 'wss:' : 'ws:'}//${loc.host}${LIVE_PATH}`;
}

export const fetchChanges: FetchChanges = async (imageId, projectId, since) => {
  try {
    const res = await request('GET', `/annotations/changes/${encodeURIComponent(imageId)}?since=${since}&project_id=${encodeURIComponent(projectId)}`, ChangesResponse);
    return changeOfResponse(res);
  } catch (err) {
    if (isApiError(err) && err.status === 410) return 'expired';
    throw err;
  }
};

function defaultDeps(): LiveDeps {
  return {
    url: liveUrl(),
    createSocket: (url) => new WebSocket(url) as unknown as LiveSocket,
    getToken: async () => (await (await getSupabase()).auth.getSession()).data.session?.access_token ?? null,
    onTokenChange: onSessionRenewed,
    fetchChanges,
    setTimer: (fn, ms) => setTimeout(fn, ms),
    clearTimer: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
    random: Math.random,
    log: (message, err) => console.warn(message, err ?? ''),
  };
}

let shared: LiveClient | null = null;
/** One socket per tab: every screen that watches an image goes through this client. */
export function getLiveClient(): LiveClient {
  return (shared ??= new LiveClient(defaultDeps()));
}
