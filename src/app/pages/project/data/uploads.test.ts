// The upload queue against a fake server and a fake XMLHttpRequest: five files in flight, the next
// starting as soon as one ends, one failure not stopping the rest, cancel.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const calls = vi.hoisted(() => ({ check: 0, checkInFlight: 0, checkPeak: 0, register: [] as string[] }));

vi.mock('../../../api/client', () => ({
  isApiError: () => false,
  api: {
    checkFilename: async (_p: string, _o: string, filename: string) => {
      calls.check += 1;
      calls.checkInFlight += 1;
      calls.checkPeak = Math.max(calls.checkPeak, calls.checkInFlight);
      await new Promise((r) => setTimeout(r, 5));
      calls.checkInFlight -= 1;
      return { unique_filename: filename, original_filename: filename, changed: false };
    },
    uploadUrl: async (_p: string, _o: string, f: { filename: string; content_type: string; folder_path: string }) => ({
      upload_url: `http://storage.test/${f.filename}`,
      gcs_uri: `gs://b/${f.filename}`,
      gcs_path: f.filename,
      gcs_bucket: 'b',
      filename: f.filename,
      content_type: f.content_type,
      folder_path: f.folder_path,
      max_bytes: 1000,
      expires_at: '',
    }),
    registerImage: async (_p: string, _o: string, input: { filename: string }) => {
      calls.register.push(input.filename);
      return {};
    },
  },
}));

import { useUploads } from './uploads';

/** PUTs wait until the test answers them. */
class FakeXhr {
  static open: FakeXhr[] = [];
  static peak = 0;
  url = '';
  status = 0;
  responseText = '';
  upload: { onprogress: ((e: { loaded: number }) => void) | null } = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;
  open(_method: string, url: string) {
    this.url = url;
  }
  setRequestHeader() {}
  send() {
    FakeXhr.open.push(this);
    FakeXhr.peak = Math.max(FakeXhr.peak, FakeXhr.open.length);
  }
  private close() {
    FakeXhr.open = FakeXhr.open.filter((x) => x !== this);
  }
  respond(status: number, body = '') {
    this.close();
    this.status = status;
    this.responseText = body;
    this.onload?.();
  }
  abort() {
    this.close();
    this.onabort?.();
  }
}

const inFlight = () => FakeXhr.open.map((x) => x.url.slice(x.url.lastIndexOf('/') + 1)).sort();
const put = (name: string) => FakeXhr.open.find((x) => x.url.endsWith(`/${name}`))!;
const names = (n: number) => Array.from({ length: n }, (_, i) => `img${String(i).padStart(2, '0')}.png`);
async function until(check: () => boolean) {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
}
const statusOf = (name: string) => useUploads.getState().items.find((i) => i.name === name)!;

function start(files: string[]) {
  useUploads.getState().start({
    projectId: 'p',
    orgId: 'o',
    folderPath: '/',
    files: files.map((n) => new File([new Uint8Array(10)], n, { type: n.endsWith('.png') ? 'image/png' : 'text/plain' })),
    onProgress: () => {},
  });
}

beforeEach(() => {
  FakeXhr.open = [];
  FakeXhr.peak = 0;
  Object.assign(calls, { check: 0, checkInFlight: 0, checkPeak: 0, register: [] });
  vi.stubGlobal('XMLHttpRequest', FakeXhr);
});
afterEach(() => {
  vi.unstubAllGlobals();
  useUploads.setState({ active: false, finished: false, items: [], skipped: [] });
});

describe('upload queue', () => {
  it('keeps five files in flight, starts the next when any one ends, and goes on after a failure', async () => {
    const files = names(12);
    start([...files, 'notes.txt']);
    expect(useUploads.getState().skipped).toEqual(['notes.txt']);
    await until(() => FakeXhr.open.length === 5);
    expect(inFlight()).toEqual(files.slice(0, 5));
    // Names were checked side by side, not one after another.
    expect(calls.checkPeak).toBeGreaterThan(1);
    expect(statusOf('img07.png').status).toBe('queued');

    // The third file finishing frees its slot at once: img05 starts while img00, 01, 03, 04 still run.
    put('img02.png').respond(200);
    await until(() => inFlight().includes('img05.png'));
    expect(inFlight()).toEqual(['img00.png', 'img01.png', 'img03.png', 'img04.png', 'img05.png']);
    await until(() => statusOf('img02.png').status === 'done');

    // A failed PUT fails that file only; its slot goes to the next one.
    put('img00.png').respond(500, 'disk full');
    await until(() => inFlight().includes('img06.png'));
    expect(statusOf('img00.png')).toMatchObject({ status: 'failed', error: 'Upload failed: 500 disk full' });

    while (useUploads.getState().active) {
      await until(() => FakeXhr.open.length > 0 || !useUploads.getState().active);
      FakeXhr.open[0]?.respond(200);
      await new Promise((r) => setTimeout(r, 0));
    }
    expect(FakeXhr.peak).toBe(5);
    const items = useUploads.getState().items;
    expect(items.filter((i) => i.status === 'done')).toHaveLength(11);
    expect(items.filter((i) => i.status === 'failed').map((i) => i.name)).toEqual(['img00.png']);
    expect(calls.register.sort()).toEqual(files.filter((f) => f !== 'img00.png'));
    expect(useUploads.getState().finished).toBe(true);
  });

  it('cancel aborts the files in flight and starts no more', async () => {
    start(names(8));
    await until(() => FakeXhr.open.length === 5);
    put('img01.png').respond(200);
    await until(() => statusOf('img01.png').status === 'done');
    await until(() => FakeXhr.open.length === 5);
    useUploads.getState().cancel();
    await until(() => !useUploads.getState().active);
    expect(FakeXhr.open).toHaveLength(0);
    const items = useUploads.getState().items;
    expect(items.filter((i) => i.status === 'done').map((i) => i.name)).toEqual(['img01.png']);
    expect(items.filter((i) => i.status === 'cancelled')).toHaveLength(7);
    expect(calls.register).toEqual(['img01.png']);
  });
});
