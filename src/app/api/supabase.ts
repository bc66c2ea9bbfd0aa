// Identity: the supabase-js client, created from GET /api/v1/config (ARCHITECTURE.md "Identity").
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { ConfigResponse, type ConfigResponse as Config } from '../../contract/system';

let configPromise: Promise<Config> | null = null;
let client: SupabaseClient | null = null;
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

/** The supabase-js client. In embedded mode the auth service lives on this origin, so the SPA
 * always talks to it where it was served from (this also keeps the Vite dev proxy working). */
export async function getSupabase(): Promise<SupabaseClient> {
  if (client) return client;
  const c = await loadConfig();
  if (client) return client;
  const url = c.authMode === 'embedded' ? window.location.origin : c.supabaseUrl;
  client = createClient(url, c.supabaseAnonKey, {
    auth: { flowType: 'pkce', persistSession: true, autoRefreshToken: true, detectSessionInUrl: true },
  });
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
