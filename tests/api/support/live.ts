// A client of the live socket (/api/v1/live) for API tests: it keeps every message it got, waits
// for the next one that matches, and tells how the socket closed.
import { afterEach } from 'vitest';
import WebSocket from 'ws';
import type { TestServer } from '../harness';

export type LiveMessage = { type: string; [key: string]: any };

export class LiveClient {
  readonly socket: WebSocket;
  readonly messages: LiveMessage[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private waiters: { match: (m: LiveMessage) => boolean; resolve: (m: LiveMessage) => void }[] = [];
  private readonly open: Promise<void>;

  constructor(server: TestServer | string) {
    const base = typeof server === 'string' ? server : server.url;
    this.socket = new WebSocket(`${base.replace(/^http/, 'ws')}/api/v1/live`);
    this.open = new Promise((resolve, reject) => {
      this.socket.once('open', () => resolve());
      this.socket.once('error', reject);
    });
    this.closed = new Promise((resolve) => this.socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    this.socket.on('message', (data) => {
      const message = JSON.parse(data.toString()) as LiveMessage;
      this.messages.push(message);
      const i = this.waiters.findIndex((w) => w.match(message));
      if (i >= 0) this.waiters.splice(i, 1)[0]!.resolve(message);
    });
  }

  /** Opens a socket and authenticates; resolves once `ready` came. */
  static async ready(server: TestServer | string, token: string): Promise<LiveClient> {
    const client = new LiveClient(server);
    await client.send({ type: 'auth', token });
    await Promise.race([
      client.next((m) => m.type === 'ready'),
      client.closed.then(({ code, reason }) => {
        throw new Error(`the socket closed before ready: ${code} ${reason}`);
      }),
    ]);
    return client;
  }

  async send(message: unknown): Promise<void> {
    await this.open;
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** The first message from now on (or already received and not yet taken, with `past`) that matches. */
  // 15 s: on CI's two loaded cores a relayed message once took over 5 s; a passing test never waits it out.
  next(match: (m: LiveMessage) => boolean, timeoutMs = 15_000, past = false): Promise<LiveMessage> {
    if (past) {
      const seen = this.messages.find(match);
      if (seen) return Promise.resolve(seen);
    }
    return new Promise((resolve, reject) => {
      const waiter = { match, resolve: (m: LiveMessage) => (clearTimeout(timer), resolve(m)) };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`no matching live message in ${timeoutMs} ms; got ${JSON.stringify(this.messages.slice(-5))}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** Joins the image; resolves with `joined` (or the error). */
  async join(imageId: string, projectId: string): Promise<LiveMessage> {
    await this.send({ type: 'join', image_id: imageId, project_id: projectId });
    return this.next((m) => (m.type === 'joined' || m.type === 'error') && m.image_id === imageId);
  }

  /** The `changed` of this image at `version`. */
  changed(imageId: string, version: number, timeoutMs = 15_000): Promise<LiveMessage> {
    return this.next((m) => m.type === 'changed' && m.image_id === imageId && m.version === version, timeoutMs, true);
  }

  close(): void {
    this.socket.close();
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The list a test file puts its sockets in; each is closed after the test that opened it (left
 * open, the owner's would pass LIVE_MAX_SOCKETS_PER_USER in a later test). Call it at the file's
 * top level.
 */
export function closedAfterEach(): LiveClient[] {
  const sockets: LiveClient[] = [];
  afterEach(async () => {
    const open = sockets.splice(0);
    for (const s of open) s.socket.terminate();
    await Promise.all(open.map((s) => s.closed));
    // The server's close handlers run before the next test counts sockets.
    await sleep(20);
  });
  return sockets;
}
