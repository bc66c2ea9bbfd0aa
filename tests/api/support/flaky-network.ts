// The network under the chaos tests (save-chaos, live-chaos): a fetch that runs each request as
// the tab it came from sees it (a tab is the async context the request runs in) and makes that
// tab's next save fail as queued. A save request (save-changes, batch-save-data) takes the tab's
// next fault: refused before the server ('offline'), applied with the answer lost ('lost') or
// answered 502 ('502-after'), a 503 that never reached the server, or held in the network before
// or after the server ('hold-before', 'hold-after') until the test lets it go. A closed tab's
// requests still reach the server; their answers go nowhere (they never settle). Requests on their
// way, not held, are in `inflight`: the tests' clocks wait for them between timers.

export type Fault = 'offline' | 'lost' | '503' | '502-after' | 'hold-before' | 'hold-after';
export const FAULTS: Fault[] = ['offline', 'lost', '503', '502-after', 'hold-before', 'hold-after'];

export interface FlakyNetworkOptions<Tab> {
  /** The server's origin, put before a path ('/api/...'). */
  origin: () => string;
  /** The tab whose request this is; none: the test's own request, sent as it is. */
  tab: () => Tab | undefined;
  /** The tab was closed: what it sent still reaches the server, the answer goes nowhere. */
  closed: (tab: Tab) => boolean;
  /** Every request of the tab fails before it leaves. */
  offline?: (tab: Tab) => boolean;
  /** The fault for this save request, taken from the tab's queue (undefined: none). */
  nextFault: (tab: Tab) => Fault | undefined;
  /** A held save waits for the promise returned: `before` the server has it, else its answer is held. */
  hold: (tab: Tab, before: boolean, init: RequestInit | undefined) => Promise<void>;
  /** The server answered a save request (whatever the fault then makes of the answer): the test's records. */
  onSaveAnswer: (tab: Tab, save: { url: string; init: RequestInit | undefined; fault: Fault | undefined; res: Response }) => void | Promise<void>;
}

export interface FlakyNetwork {
  fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  /** Requests on their way (not held in the network). */
  inflight: Set<Promise<unknown>>;
  /** Counts `p` in `inflight` until it settles. */
  track: <T>(p: Promise<T>) => Promise<T>;
}

/** The network; the fetch it wraps is the one in place when it is made (before a test stubs it with this one). */
export function flakyNetwork<Tab>(opts: FlakyNetworkOptions<Tab>): FlakyNetwork {
  const realFetch = globalThis.fetch;
  const inflight = new Set<Promise<unknown>>();
  const track = <T>(p: Promise<T>): Promise<T> => {
    inflight.add(p);
    void p.catch(() => undefined).finally(() => inflight.delete(p));
    return p;
  };

  async function faulty(tab: Tab, url: string, full: string, init?: RequestInit): Promise<Response> {
    const isSave = /annotations\/(save-changes|batch-save-data)/.test(url);
    const fault = isSave ? opts.nextFault(tab) : undefined;
    const send = () =>
      realFetch(full, { ...init, keepalive: false }).then(async (res) => {
        if (isSave) await opts.onSaveAnswer(tab, { url, init, fault, res });
        return res;
      });
    switch (fault) {
      case 'offline':
        throw new TypeError('fetch failed');
      case '503':
        return new Response(JSON.stringify({ success: false, code: 'unavailable', error: 'Service Unavailable' }), { status: 503 });
      case 'lost':
        await track(send().then((r) => r.text()));
        throw new TypeError('network connection lost');
      case '502-after':
        await track(send().then((r) => r.text()));
        return new Response('Bad Gateway', { status: 502 });
      case 'hold-before':
        await opts.hold(tab, true, init);
        return track(send());
      case 'hold-after': {
        const res = await track(send());
        const text = await track(res.text());
        await opts.hold(tab, false, init);
        return new Response(text, { status: res.status, headers: res.headers });
      }
      default:
        return track(send());
    }
  }

  async function fetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const url = String(input);
    const tab = opts.tab();
    const full = url.startsWith('/') ? `${opts.origin()}${url}` : url;
    if (!tab) return realFetch(full, init);
    if (opts.offline?.(tab)) throw new TypeError('fetch failed (offline)');
    // What reaches the server still does after the tab closed (a keepalive save); the answer goes nowhere.
    return faulty(tab, url, full, init).then(
      (res) => (opts.closed(tab) ? new Promise<Response>(() => undefined) : res),
      (err: unknown) => (opts.closed(tab) ? new Promise<Response>(() => undefined) : Promise.reject(err)),
    );
  }

  return { fetch, inflight, track };
}
