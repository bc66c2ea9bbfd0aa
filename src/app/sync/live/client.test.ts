// The live client against a fake socket and a fake clock: auth and re-auth, join and leave,
// reconnect with backoff, gap recovery through GET changes (and 410 -> reload), own saves in
// flight, and validation of what the server sends.
import { describe, expect, it } from 'vitest';
import type { StoredAnnotation } from '../../../contract/annotations';
import type { LivePeer } from '../../../contract/live';
import { LiveClient, LIVE_BUSY_RETRY_MS, LIVE_CONTROL_RETRY_MS, LIVE_OVERLAP_RETRIES, LIVE_OVERLAP_RETRY_MS, LIVE_WATCH_DEBOUNCE_MS, type ApplyResult, type LiveChange, type LiveDeps, type LiveImageHandler, type LivePresenceHandler, type LiveSocket } from './client';

const IMG = '11111111-1111-4111-8111-111111111111';
const PROJ = '22222222-2222-4222-8222-222222222222';

class FakeSocket implements LiveSocket {
  readyState = 0;
  sent: Record<string, unknown>[] = [];
  closed = false;
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: { code: number; reason?: string }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  send(data: string) {
    this.sent.push(JSON.parse(data) as Record<string, unknown>);
  }
  close() {
    this.closed = true;
  }
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
  server(msg: unknown) {
    this.onmessage?.({ data: typeof msg === 'string' ? msg : JSON.stringify(msg) });
  }
  drop(code = 1006) {
    this.readyState = 3;
    this.onclose?.({ code });
  }
  types() {
    return this.sent.map((m) => m.type);
  }
}

const flush = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
};

function setup(opts: { changes?: (since: number) => LiveChange | 'expired' } = {}) {
  const sockets: FakeSocket[] = [];
  const timers = new Map<number, { fn: () => void; ms: number }>();
  let nextTimer = 0;
  let token = 'token-1';
  let tokenCb: (() => void) | null = null;
  const fetched: number[] = [];
  const deps: LiveDeps = {
    url: 'ws://test/api/v1/live',
    createSocket: () => {
      const s = new FakeSocket();
      sockets.push(s);
      return s;
    },
    getToken: async () => token,
    onTokenChange: (cb) => {
      tokenCb = cb;
      return () => (tokenCb = null);
    },
    fetchChanges: async (_img, _proj, since) => {
      fetched.push(since);
      if (!opts.changes) throw new Error('no changes endpoint in this test');
      return opts.changes(since);
    },
    setTimer: (fn, ms) => {
      timers.set(++nextTimer, { fn, ms });
      return nextTimer;
    },
    clearTimer: (h) => void timers.delete(h as number),
    random: () => 1,
    log: () => undefined,
  };
  const client = new LiveClient(deps);
  /** Runs the timers waiting now; returns their delays. */
  const runTimers = () => {
    const due = [...timers.entries()];
    timers.clear();
    for (const [, t] of due) t.fn();
    return due.map(([, t]) => t.ms);
  };
  return {
    client,
    sockets,
    fetched,
    runTimers,
    setToken: (t: string) => (token = t),
    refreshToken: () => tokenCb?.(),
    last: () => sockets[sockets.length - 1]!,
  };
}

/** A screen holding a version; apply() takes changes that build on it. */
function screen(start = 0) {
  const applied: LiveChange[] = [];
  const state = { version: start as number | null, busy: false, reloads: 0, peers: [] as string[] };
  const handler: LiveImageHandler = {
    version: () => state.version,
    apply: (c): ApplyResult => {
      if (state.version === null) return 'closed';
      if (c.version <= state.version) return 'known';
      if (state.busy) return 'busy';
      if (c.base_version !== state.version) return 'gap';
      state.version = c.version;
      applied.push(c);
      return 'applied';
    },
    reload: () => {
      state.reloads += 1;
    },
    onPeers: (peers) => (state.peers = peers.map((p) => p.name)),
  };
  return { handler, applied, state };
}

const box = (id: string, x = 0): StoredAnnotation => ({ id, name: 'car', bounding_box: { x, y: 0, w: 10, h: 10 } });
const changed = (version: number, extra: Record<string, unknown> = {}) => ({ type: 'changed', image_id: IMG, version, base_version: version - 1, upserts: [box(`s${version}`)], removed_ids: [], by: 'u2', ...extra });

async function connected(t: ReturnType<typeof setup>, s: ReturnType<typeof screen>, version = 0) {
  t.client.watch(IMG, PROJ, s.handler);
  const sock = t.last();
  sock.open();
  await flush();
  sock.server({ type: 'ready', user_id: 'u1' });
  sock.server({ type: 'joined', image_id: IMG, version, peers: [{ user_id: 'u1', name: 'Ann', color: '#e6194b', can_edit: true }] });
  await flush();
  return sock;
}

describe('LiveClient', () => {
  it('authenticates with the access token, joins the watched image, and leaves it', async () => {
    const t = setup();
    const s = screen();
    const off = t.client.watch(IMG, PROJ, s.handler);
    expect(t.sockets).toHaveLength(1);
    const sock = t.last();
    sock.open();
    await flush();
    expect(sock.sent[0]).toEqual({ type: 'auth', token: 'token-1' });
    sock.server({ type: 'ready', user_id: 'u1' });
    expect(sock.sent[1]).toEqual({ type: 'join', image_id: IMG, project_id: PROJ });
    sock.server({ type: 'joined', image_id: IMG, version: 0, peers: [{ user_id: 'u1', name: 'Ann', color: '#e6194b', can_edit: true }] });
    expect(s.state.peers).toEqual(['Ann']);
    expect(t.client.userId).toBe('u1');
    off();
    expect(sock.sent[2]).toEqual({ type: 'leave', image_id: IMG });
  });

  it('sends the refreshed token on the open socket', async () => {
    const t = setup();
    const sock = await connected(t, screen());
    t.setToken('token-2');
    t.refreshToken();
    await flush();
    expect(sock.sent.filter((m) => m.type === 'auth').map((m) => m.token)).toEqual(['token-1', 'token-2']);
    // The second ready (of the re-auth) does not join again.
    sock.server({ type: 'ready', user_id: 'u1' });
    expect(sock.types().filter((x) => x === 'join')).toHaveLength(1);
    expect(t.sockets).toHaveLength(1);
  });

  it('reconnects with growing delays, shows nobody on the image meanwhile, authenticates and joins again, and catches up on the versions missed', async () => {
    const t = setup({ changes: (since) => ({ version: 3, base_version: since, upserts: [box('x', 5)], removed_ids: ['s1'], by: null }) });
    const s = screen();
    const first = await connected(t, s);
    first.server(changed(1, { saved_at: '2026-12-01T10:00:00.000Z' }));
    expect(s.state.version).toBe(1);
    expect(s.applied[0]).toMatchObject({ version: 1, by: 'u2', saved_at: '2026-12-01T10:00:00.000Z' }); // when it was saved, for the later-edit rule
    expect(s.state.peers).toEqual(['Ann']);
    first.drop();
    // Nobody is known to be on the image while the socket is away.
    expect(s.state.peers).toEqual([]);
    expect(t.runTimers()).toEqual([500]);
    t.last().drop(); // the server is still away
    expect(t.runTimers()).toEqual([1000]);
    const sock = t.last();
    expect(t.sockets).toHaveLength(3);
    sock.open();
    await flush();
    expect(sock.sent[0]).toEqual({ type: 'auth', token: 'token-1' });
    sock.server({ type: 'ready', user_id: 'u1' });
    expect(sock.sent[1]).toMatchObject({ type: 'join', image_id: IMG });
    sock.server({ type: 'joined', image_id: IMG, version: 3, peers: [{ user_id: 'u1', name: 'Ann', color: '#e6194b', can_edit: true }] });
    await flush();
    expect(s.state.peers).toEqual(['Ann']);
    expect(t.fetched).toEqual([1]);
    expect(s.state.version).toBe(3);
    expect(s.applied[1]).toMatchObject({ base_version: 1, version: 3, removed_ids: ['s1'] });
    // Connected again: the backoff starts over.
    sock.drop();
    expect(t.runTimers()).toEqual([500]);
  });

  it('applies a changed that builds on the version held, loads the changes for one that does not', async () => {
    const t = setup({ changes: (since) => ({ version: 4, base_version: since, upserts: [box('s3'), box('s4')], removed_ids: [], by: null }) });
    const s = screen();
    const sock = await connected(t, s);
    sock.server(changed(1));
    expect(s.applied.map((c) => c.version)).toEqual([1]);
    expect(t.fetched).toEqual([]);
    sock.server(changed(4)); // 2 and 3 were missed
    await flush();
    expect(t.fetched).toEqual([1]);
    expect(s.state.version).toBe(4);
    // The same version again (this tab's own save, already held): nothing.
    sock.server(changed(4));
    await flush();
    expect(s.applied).toHaveLength(2);
  });

  it('410 history_expired: the screen reloads the whole document', async () => {
    const t = setup({ changes: () => 'expired' });
    const s = screen(2);
    const sock = await connected(t, s, 2);
    sock.server(changed(9));
    await flush();
    expect(t.fetched).toEqual([2]);
    expect(s.state.reloads).toBe(1);
  });

  it('an omitted change is loaded through GET changes', async () => {
    const t = setup({ changes: (since) => ({ version: since + 1, base_version: since, upserts: [box('big')], removed_ids: [], by: null }) });
    const s = screen();
    const sock = await connected(t, s);
    sock.server(changed(1, { upserts: [], omitted: true }));
    await flush();
    expect(t.fetched).toEqual([0]);
    expect(s.applied[0]!.upserts.map((a) => a.id)).toEqual(['big']);
  });

  it('a change that meets a save of this tab in flight is tried again after it', async () => {
    const t = setup({ changes: (since) => ({ version: 1, base_version: since, upserts: [box('s1')], removed_ids: [], by: null }) });
    const s = screen();
    const sock = await connected(t, s);
    s.state.busy = true;
    sock.server(changed(1));
    expect(s.applied).toHaveLength(0);
    s.state.busy = false;
    expect(t.runTimers()).toEqual([LIVE_BUSY_RETRY_MS]);
    await flush();
    expect(s.state.version).toBe(1);
    // Applied as it came: no load of the changes.
    expect(t.fetched).toEqual([]);
  });

  it("this tab's own save heard before its answer: held once the answer lands, nothing loaded or applied twice", async () => {
    const t = setup({ changes: () => ({ version: 1, base_version: 0, upserts: [], removed_ids: [], by: null }) });
    const s = screen();
    const sock = await connected(t, s);
    s.state.busy = true;
    sock.server(changed(1, { by: 'u1' }));
    expect(t.runTimers()).toEqual([LIVE_BUSY_RETRY_MS]); // still in flight: waits again
    await flush();
    s.state.busy = false;
    s.state.version = 1; // the save's answer moved the version held on
    t.runTimers();
    await flush();
    expect(s.applied).toHaveLength(0);
    expect(t.fetched).toEqual([]);
  });

  it('overlap: sends this tab\'s once joined (held while disconnected), and passes on another person\'s, named from the people on the image, not this user\'s own', async () => {
    const t = setup();
    const s = screen();
    const heard: unknown[] = [];
    t.client.onPeerOverlap((imageId, o) => heard.push({ imageId, ...o }));
    let sock = await connected(t, s);
    t.client.sendOverlap(IMG, ['a', 'b']);
    t.client.sendOverlap('33333333-3333-4333-8333-333333333333', ['a']); // not watched: nothing
    expect(sock.sent.filter((m) => m.type === 'overlap')).toEqual([{ type: 'overlap', image_id: IMG, ids: ['a', 'b'] }]);
    sock.server({ type: 'presence', image_id: IMG, peers: [{ user_id: 'u1', name: 'Ann', color: '#e6194b', can_edit: true }, { user_id: 'u2', name: 'Bea Smith', color: '#3cb44b', can_edit: true }] });
    sock.server({ type: 'peer', image_id: IMG, user_id: 'u2', overlap: ['a'] });
    sock.server({ type: 'peer', image_id: IMG, user_id: 'u1', overlap: ['b'] }); // this user's other tab
    sock.server({ type: 'peer', image_id: IMG, user_id: 'u9', overlap: ['c'] }); // not among the people: no name
    expect(heard).toEqual([
      { imageId: IMG, user_id: 'u2', name: 'Bea Smith', ids: ['a'] },
      { imageId: IMG, user_id: 'u9', name: null, ids: ['c'] },
    ]);
    // Disconnected: the overlap waits for the join after the reconnect.
    sock.drop();
    t.client.sendOverlap(IMG, ['d']);
    t.runTimers();
    sock = t.last();
    sock.open();
    await flush();
    sock.server({ type: 'ready', user_id: 'u1' });
    expect(sock.types()).toEqual(['auth', 'join']);
    sock.server({ type: 'joined', image_id: IMG, version: 0, peers: [] });
    expect(sock.sent.filter((m) => m.type === 'overlap')).toEqual([{ type: 'overlap', image_id: IMG, ids: ['d'] }]);
  });

  it("issues: tells the listeners when a joined image's issues change (issue 29), not for an image it does not watch", async () => {
    const t = setup();
    const s = screen();
    const heard: string[] = [];
    const off = t.client.onIssues((imageId) => heard.push(imageId));
    const sock = await connected(t, s);
    sock.server({ type: 'issues', image_id: IMG });
    sock.server({ type: 'issues', image_id: '33333333-3333-4333-8333-333333333333' });
    expect(heard).toEqual([IMG]);
    off();
    sock.server({ type: 'issues', image_id: IMG });
    expect(heard).toEqual([IMG]);
  });

  it(`an overlap the server refused (rate_limited for the image) goes again a second later, at most ${LIVE_OVERLAP_RETRIES} times`, async () => {
    const t = setup();
    const sock = await connected(t, screen());
    const overlaps = () => sock.sent.filter((m) => m.type === 'overlap');
    t.client.sendOverlap(IMG, ['a']);
    // A control message's rate_limited names no image: nothing goes again.
    sock.server({ type: 'error', code: 'rate_limited', message: 'At most 10 auth, join, leave and watch messages a second' });
    expect(t.runTimers()).toEqual([]);
    for (let i = 0; i < LIVE_OVERLAP_RETRIES; i++) {
      sock.server({ type: 'error', code: 'rate_limited', image_id: IMG });
      expect(t.runTimers()).toEqual([LIVE_OVERLAP_RETRY_MS]);
    }
    expect(overlaps()).toEqual(Array.from({ length: LIVE_OVERLAP_RETRIES + 1 }, () => ({ type: 'overlap', image_id: IMG, ids: ['a'] })));
    sock.server({ type: 'error', code: 'rate_limited', image_id: IMG });
    expect(t.runTimers()).toEqual([]);
    expect(overlaps()).toHaveLength(LIVE_OVERLAP_RETRIES + 1);
  });

  it('a join or leave the server refused for its rate goes again a second later, if still wanted then; one timer for all', async () => {
    const t = setup();
    const sock = await connected(t, screen());
    const OTHER = '33333333-3333-4333-8333-333333333333';
    const GONE = '44444444-4444-4444-8444-444444444444';
    // The screen moved on fast: a leave and a join refused (the control budget of the second spent).
    const offOther = t.client.watch(OTHER, PROJ, screen().handler);
    const offGone = t.client.watch(GONE, PROJ, screen().handler);
    offGone();
    const sentBefore = sock.sent.length;
    sock.server({ type: 'error', code: 'rate_limited', refused: 'join', image_id: OTHER, message: 'At most 10 auth, join, leave and watch messages a second' });
    sock.server({ type: 'error', code: 'rate_limited', refused: 'leave', image_id: GONE, message: 'At most 10 auth, join, leave and watch messages a second' });
    // Not an overlap: no overlap goes again.
    expect(t.runTimers()).toEqual([LIVE_CONTROL_RETRY_MS]);
    expect(sock.sent.slice(sentBefore)).toEqual([
      { type: 'join', image_id: OTHER, project_id: PROJ },
      { type: 'leave', image_id: GONE },
    ]);
    // Refused again, but no longer wanted when the second is up: nothing goes.
    sock.server({ type: 'error', code: 'rate_limited', refused: 'join', image_id: OTHER });
    offOther();
    const after = sock.sent.length;
    t.runTimers();
    expect(sock.sent.slice(after)).toEqual([]);
  });

  it('a refused join waiting for its second is dropped with the socket: the reconnect joins again once', async () => {
    const t = setup();
    const sock = await connected(t, screen());
    sock.server({ type: 'error', code: 'rate_limited', refused: 'join', image_id: IMG });
    sock.drop();
    const delays = t.runTimers();
    expect(delays).not.toContain(LIVE_CONTROL_RETRY_MS);
    const next = t.last();
    expect(next).not.toBe(sock);
    next.open();
    await flush();
    next.server({ type: 'ready', user_id: 'u1' });
    t.runTimers();
    expect(next.sent.filter((m) => m.type === 'join')).toEqual([{ type: 'join', image_id: IMG, project_id: PROJ }]);
  });

  it('ignores messages that are not JSON or not of the contract, and carries on', async () => {
    const t = setup();
    const s = screen();
    const sock = await connected(t, s);
    sock.server('not json');
    sock.server({ type: 'changed', image_id: IMG, version: 'one' });
    sock.server({ type: 'teleport' });
    sock.server(changed(1));
    expect(s.state.version).toBe(1);
  });

  it('waits for the screen to hold a version, and catches up when it says so', async () => {
    const t = setup({ changes: (since) => ({ version: 2, base_version: since, upserts: [], removed_ids: ['a'], by: null }) });
    const s = screen();
    s.state.version = null; // still loading
    const sock = await connected(t, s, 2);
    expect(t.fetched).toEqual([]);
    s.state.version = 0;
    t.client.resync(IMG);
    await flush();
    expect(t.fetched).toEqual([0]);
    expect(s.state.version).toBe(2);
    expect(sock.closed).toBe(false);
  });

  it('opens no socket while nothing is watched, and closes it on dispose', async () => {
    const t = setup();
    expect(t.sockets).toHaveLength(0);
    const sock = await connected(t, screen());
    t.client.dispose();
    expect(sock.closed).toBe(true);
    sock.drop(1000);
    expect(t.runTimers()).toEqual([]);
  });
});

describe('LiveClient.watchPresence (the Data tab)', () => {
  const A = '33333333-3333-4333-8333-333333333333';
  const B = '44444444-4444-4444-8444-444444444444';
  const C = '55555555-5555-4555-8555-555555555555';
  const ann: LivePeer = { user_id: 'u2', name: 'Ann', color: '#e6194b', can_edit: true };

  function tiles() {
    const log: string[] = [];
    const handler: LivePresenceHandler = {
      onWatching: (images) => log.push(`watching ${images.map((i) => `${i.image_id.slice(0, 1)}:${i.peers.length}`).join(' ')}`),
      onPresence: (id, peers) => log.push(`presence ${id.slice(0, 1)}:${peers.map((p) => p.name).join('+')}`),
      onDisconnected: () => log.push('disconnected'),
    };
    return { log, handler };
  }
  const watchesSent = (sock: FakeSocket) => sock.sent.filter((m) => m.type === 'watch');

  it('opens the socket for a watch, sends the last set once after the debounce, and sends nothing for a set it already has', async () => {
    const t = setup();
    const { handler } = tiles();
    const w = t.client.watchPresence(handler);
    expect(t.sockets).toHaveLength(0); // nothing named yet
    w.set(PROJ, [A]);
    w.set(PROJ, [A, B, A]);
    const sock = t.last();
    sock.open();
    await flush();
    sock.server({ type: 'ready', user_id: 'u1' });
    // On ready the set goes at once; the debounce timer then finds it sent.
    expect(watchesSent(sock)).toEqual([{ type: 'watch', project_id: PROJ, image_ids: [A, B] }]);
    expect(t.runTimers()).toEqual([LIVE_WATCH_DEBOUNCE_MS]);
    expect(watchesSent(sock)).toHaveLength(1);
    // Scrolling: three sets in a row go as one, the last.
    w.set(PROJ, [B]);
    w.set(PROJ, [B, C]);
    w.set(PROJ, [C]);
    expect(t.runTimers()).toEqual([LIVE_WATCH_DEBOUNCE_MS]);
    expect(watchesSent(sock).slice(1)).toEqual([{ type: 'watch', project_id: PROJ, image_ids: [C] }]);
    w.set(PROJ, [C]);
    t.runTimers();
    expect(watchesSent(sock)).toHaveLength(2);
    // Stopping ends the watch on the server.
    w.stop();
    expect(watchesSent(sock).slice(2)).toEqual([{ type: 'watch', project_id: PROJ, image_ids: [] }]);
  });

  it('passes on the answer and the presence of the images watched now, not of others, and not the joined image\'s presence', async () => {
    const t = setup();
    const s = screen();
    const sock = await connected(t, s);
    const { log, handler } = tiles();
    const w = t.client.watchPresence(handler);
    w.set(PROJ, [A, B]);
    t.runTimers();
    sock.server({ type: 'watching', project_id: PROJ, images: [{ image_id: A, peers: [ann] }, { image_id: B, peers: [] }] });
    sock.server({ type: 'presence', image_id: B, peers: [ann] });
    sock.server({ type: 'presence', image_id: C, peers: [ann] }); // not watched
    sock.server({ type: 'presence', image_id: IMG, peers: [ann] }); // the editor's image: its handler only
    w.set(PROJ, [B]);
    t.runTimers();
    // An answer to the set before comes late: only what is still watched is passed on.
    sock.server({ type: 'watching', project_id: PROJ, images: [{ image_id: A, peers: [ann] }, { image_id: B, peers: [ann] }] });
    sock.server({ type: 'presence', image_id: A, peers: [] });
    expect(log).toEqual(['watching 3:1 4:0', 'presence 4:Ann', 'watching 4:1']);
    expect(s.state.peers).toEqual(['Ann']);
  });

  it('after a reconnect the watch is sent again at once, and the screen is told nothing is known meanwhile', async () => {
    const t = setup();
    const { log, handler } = tiles();
    const w = t.client.watchPresence(handler);
    w.set(PROJ, [A]);
    const first = t.last();
    first.open();
    await flush();
    first.server({ type: 'ready', user_id: 'u1' });
    t.runTimers();
    first.drop();
    expect(log).toEqual(['disconnected']);
    expect(t.runTimers()).toEqual([500]);
    const sock = t.last();
    sock.open();
    await flush();
    sock.server({ type: 'ready', user_id: 'u1' });
    expect(watchesSent(sock)).toEqual([{ type: 'watch', project_id: PROJ, image_ids: [A] }]);
  });

  it('a second watch replaces the first, which hears nothing more; an empty set is not sent to a server that has none', async () => {
    const t = setup();
    const sock = await connected(t, screen());
    const one = tiles();
    const two = tiles();
    const w1 = t.client.watchPresence(one.handler);
    w1.set(PROJ, []);
    t.runTimers();
    expect(watchesSent(sock)).toEqual([]);
    w1.set(PROJ, [A]);
    t.runTimers();
    const w2 = t.client.watchPresence(two.handler);
    expect(watchesSent(sock).map((m) => m.image_ids)).toEqual([[A], []]);
    w2.set(PROJ, [B]);
    w1.set(PROJ, [C]); // ended: ignored
    t.runTimers();
    expect(watchesSent(sock).map((m) => m.image_ids)).toEqual([[A], [], [B]]);
    sock.server({ type: 'presence', image_id: B, peers: [ann] });
    expect(one.log).toEqual([]);
    expect(two.log).toEqual(['presence 4:Ann']);
  });
});

describe('LiveClient.watchProject (the Data tab reloads when an import ends)', () => {
  const OTHER = '33333333-3333-4333-8333-333333333333';
  const projectWatches = (sock: FakeSocket) => sock.sent.filter((m) => m.type === 'watch_project');

  it('opens the socket, watches the project once ready, passes on its project_changed (not another project\'s), and ends with null', async () => {
    const t = setup();
    const heard: string[] = [];
    const off = t.client.watchProject(PROJ, (reason) => heard.push(reason));
    expect(t.sockets).toHaveLength(1);
    const sock = t.last();
    sock.open();
    await flush();
    sock.server({ type: 'ready', user_id: 'u1' });
    expect(projectWatches(sock)).toEqual([{ type: 'watch_project', project_id: PROJ }]);
    sock.server({ type: 'watching_project', project_id: PROJ });
    sock.server({ type: 'project_changed', project_id: OTHER, reason: 'import_finished' });
    sock.server({ type: 'project_changed', project_id: PROJ, reason: 'import_finished' });
    expect(heard).toEqual(['import_finished']);
    off();
    expect(projectWatches(sock).at(-1)).toEqual({ type: 'watch_project', project_id: null });
    sock.server({ type: 'project_changed', project_id: PROJ, reason: 'import_finished' });
    expect(heard).toEqual(['import_finished']);
  });

  it('after a reconnect it watches again and says "reconnected" (what happened meanwhile is unknown), not on the first connect', async () => {
    const t = setup();
    const heard: string[] = [];
    t.client.watchProject(PROJ, (reason) => heard.push(reason));
    const first = t.last();
    first.open();
    await flush();
    first.server({ type: 'ready', user_id: 'u1' });
    expect(heard).toEqual([]);
    first.drop();
    t.runTimers();
    const sock = t.last();
    expect(sock).not.toBe(first);
    sock.open();
    await flush();
    sock.server({ type: 'ready', user_id: 'u1' });
    expect(projectWatches(sock)).toEqual([{ type: 'watch_project', project_id: PROJ }]);
    expect(heard).toEqual(['reconnected']);
  });

  it('two screens of one project share the watch: it ends when both stop; another project replaces it', async () => {
    const t = setup();
    const sock = await connected(t, screen());
    const a: string[] = [];
    const b: string[] = [];
    const offA = t.client.watchProject(PROJ, (r) => a.push(r));
    const offB = t.client.watchProject(PROJ, (r) => b.push(r));
    expect(projectWatches(sock)).toEqual([{ type: 'watch_project', project_id: PROJ }]);
    sock.server({ type: 'project_changed', project_id: PROJ, reason: 'import_finished' });
    expect([a, b]).toEqual([['import_finished'], ['import_finished']]);
    offA();
    expect(projectWatches(sock)).toHaveLength(1);
    offB();
    expect(projectWatches(sock).at(-1)).toEqual({ type: 'watch_project', project_id: null });
    const c: string[] = [];
    t.client.watchProject(OTHER, (r) => c.push(r));
    expect(projectWatches(sock).at(-1)).toEqual({ type: 'watch_project', project_id: OTHER });
    sock.server({ type: 'project_changed', project_id: PROJ, reason: 'import_finished' });
    sock.server({ type: 'project_changed', project_id: OTHER, reason: 'import_finished' });
    expect(c).toEqual(['import_finished']);
  });
});

describe('LiveClient drafts (issue 35)', () => {
  it('sends a draft of a joined image at once, and not one it cannot (not joined, too many shapes, too large)', async () => {
    const t = setup();
    const s = screen(3);
    const sock = await connected(t, s, 3);
    expect(t.client.sendDraft(IMG, 3, [box('a', 5)], ['b'])).toBe(true);
    expect(sock.sent.at(-1)).toEqual({ type: 'draft', image_id: IMG, base_version: 3, upserts: [box('a', 5)], removed_ids: ['b'] });
    const count = sock.sent.length;
    expect(t.client.sendDraft('33333333-3333-4333-8333-333333333333', 3, [box('a')], [])).toBe(false);
    expect(t.client.sendDraft(IMG, 3, Array.from({ length: 101 }, (_, i) => box(`s${i}`)), [])).toBe(false);
    expect(t.client.sendDraft(IMG, 3, [{ ...box('a'), note: 'x'.repeat(70_000) } as StoredAnnotation], [])).toBe(false);
    expect(t.client.sendDraft(IMG, 3, [], [])).toBe(false);
    expect(sock.sent).toHaveLength(count);
  });

  it('hands another person\'s draft to the image\'s screen, never the user\'s own, never one of another image, never a malformed one', async () => {
    const t = setup();
    const s = screen(3);
    const drafts: unknown[] = [];
    s.handler.onDraft = (userId, upserts, removed) => drafts.push([userId, upserts, removed]);
    const sock = await connected(t, s, 3);
    sock.server({ type: 'draft', image_id: IMG, user_id: 'u2', base_version: 3, upserts: [box('a', 5)], removed_ids: ['b'] });
    sock.server({ type: 'draft', image_id: IMG, user_id: 'u1', base_version: 3, upserts: [box('mine')], removed_ids: [] });
    sock.server({ type: 'draft', image_id: '33333333-3333-4333-8333-333333333333', user_id: 'u2', base_version: 3, upserts: [box('elsewhere')], removed_ids: [] });
    sock.server({ type: 'draft', image_id: IMG, user_id: 'u2', base_version: 3, upserts: [{ name: 'no id' }], removed_ids: [] });
    expect(drafts).toEqual([['u2', [box('a', 5)], ['b']]]);
    // Nothing of a draft reaches the document's version chain.
    expect(s.applied).toEqual([]);
    expect(t.fetched).toEqual([]);
  });

  it('a draft answered rate_limited is not sent again (an overlap is)', async () => {
    const t = setup();
    const s = screen(3);
    const sock = await connected(t, s, 3);
    t.client.sendOverlap(IMG, ['o1']);
    t.client.sendDraft(IMG, 3, [box('a')], []);
    sock.server({ type: 'error', code: 'rate_limited', image_id: IMG, message: 'At most 20 drafts a second' });
    t.runTimers();
    expect(sock.types().filter((x) => x === 'overlap')).toHaveLength(1);
    expect(sock.types().filter((x) => x === 'draft')).toHaveLength(1);
  });
});
