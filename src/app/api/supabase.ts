// Identity: supabase-js's auth client, created from GET /api/v1/config (ARCHITECTURE.md "Identity").
import { AuthClient } from '@supabase/supabase-js';
import { ConfigResponse, type ConfigResponse as Config } from '../../contract/system';

let configPromise: Promise<Config> | null = null;
/** The part of supabase-js's client the SPA uses: `auth`, with the same client `createClient`
 * would make. The SPA has no use for the database, storage, functions or realtime clients, and
 * `createClient` builds them all: made this way they stay out of the bundle every page loads
 * (about 100 kB of its minified JavaScript). */
export interface Supabase {
  auth: InstanceType<typeof AuthClient>;
}

let client: Supabase | null = null;
let config: Config | null = null;

async function fetchConfig(): Promise<Config> {
  const res = await fetch('/api/v1/config', { headers: { accept: 'application/json' } });
  const text = await res.text();
  if (!res.ok) throw new Error(`API Error: ${res.status} ${text}`);
  const parsed = ConfigResponse.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error('The server sent an unexpected configuration.');
  return parsed.data;
}

/** Loads the configuration once; a failed load can be retried by calling again. */
export function loadConfig(): Promise<Config> {
  if (!configPromise) {
    configPromise = fetchConfig().then(
      (c) => {
        config = c;
        return c;
      },
      (err) => {
        configPromise = null;
        throw err;
      },
    );
  }
  return configPromise;
}

export function getConfig(): Config | null {
  return config;
}

/** The auth client. In embedded mode the auth service lives on this origin, so the SPA always
 * talks to it where it was served from (this also keeps the Vite dev proxy working). */
export async function getSupabase(): Promise<Supabase> {
  if (client) return client;
  const c = await loadConfig();
  if (client) return client;
  const base = new URL(c.authMode === 'embedded' ? `${window.location.origin}/` : c.supabaseUrl.replace(/\/?$/, '/'));
  client = {
    auth: new AuthClient({
      url: new URL('auth/v1', base).href,
      // What createClient sends: the anon key both ways.
      headers: { Authorization: `Bearer ${c.supabaseAnonKey}`, apikey: c.supabaseAnonKey },
      // createClient's key, so a session kept before this change is still found.
      storageKey: `sb-${base.hostname.split('.')[0]}-auth-token`,
      flowType: 'pkce',
      persistSession: true,
      autoRefreshToken: true,
      detectSessionInUrl: true,
    }),
  };
  return client;
}

/**
 * Calls `cb` (in a task of its own) each time the session is signed in or its token refreshed;
 * returns the function that stops it. The live socket sends the new token, the save manager
 * retries what waited for a sign-in.
 */
export function onSessionRenewed(cb: () => void): () => void {
  let off: (() => void) | null = null;
  let cancelled = false;
  void getSupabase()
    .then((sb) => {
      const { data } = sb.auth.onAuthStateChange((event) => {
        // Deferred: supabase-js runs this callback while holding its session lock.
        if (event === 'SIGNED_IN' || event === 'TOKEN_REFRESHED') setTimeout(cb, 0);
      });
      off = () => data.subscription.unsubscribe();
      if (cancelled) off();
    })
    .catch(() => undefined);
  return () => {
    cancelled = true;
    off?.();
  };
}
