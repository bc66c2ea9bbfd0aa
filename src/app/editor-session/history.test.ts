// The session's History and Discard, as a user meets them: the real engine, save link and open
// path, the save manager on a fake clock and in-memory server, and the server's version and restore
// calls answered from what that server kept. A version looked at never reaches the user's document
// or a save; a restore makes it a new version and reopens the image with it; a discarded recovery
// is never sent.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HistoryEntry, SaveDataResponse } from '../../contract/annotation-api';
import type { Image } from '../../contract/images';
import type { StoredAnnotation } from '../../contract/annotations';
import { ApiRequestError } from '../api/client';
import type { LiveClient } from '../sync/live';
import type { SaveManager } from '../sync/save';
import { openImage } from './openImage';
import { EditorSession, type AnnotationsApi } from './session';
import { box, fakeClock, fakeEditor, fakeServer, harness, newIdb, settle, type FakeServer } from '../../../tests/support/saveTestkit';
import { roleHolder } from '../../../tests/support/sessionTestkit';

const IMG = '00000000-0000-4000-8000-000000000001';
const PROJECT = '00000000-0000-4000-8000-0000000000aa';
const image = { id: IMG, filename: 'lot.png', project_id: PROJECT, annotation_count: 1 } as unknown as Image;
const liveStandIn = { userId: 'user-1', onPeerOverlap: () => () => undefined, sendOverlap: () => undefined } as unknown as LiveClient;
const entry = (version: number) => ({ version, saved_at: '2026-01-01T00:00:00.000Z', user_id: 'user-2', user_name: 'Ada', added: 1, changed: 0, removed: 0 }) as HistoryEntry;

class MemoryStorage {
  private m = new Map<string, string>();
  getItem = (k: string) => this.m.get(k) ?? null;
  setItem = (k: string, v: string) => void this.m.set(k, v);
  removeItem = (k: string) => void this.m.delete(k);
}

/** load-version and restore as the server answers them, from the versions the fake server went through. */
function versionsOf(server: FakeServer) {
  const kept = new Map<number, StoredAnnotation[]>();
  const keep = () => kept.set(server.doc(IMG).version, server.loaded(IMG).annotations);
  const restores: { version: number; base: number }[] = [];
  const api: AnnotationsApi = {
    load: async () => server.loaded(IMG),
    loadVersion: async (_imageId, _projectId, version) => {
      const annotations = kept.get(version);
      if (!annotations) throw new ApiRequestError(410, JSON.stringify({ error: 'gone', code: 'history_expired' }));
      return { annotations: structuredClone(annotations), version, saved_at: null };
    },
    restore: async (imageId, _projectId, version, base): Promise<SaveDataResponse> => {
      restores.push({ version, base });
      if (base !== server.doc(imageId).version) throw new ApiRequestError(409, JSON.stringify({ error: 'moved', code: 'version_conflict' }));
      server.saveAs(imageId, kept.get(version)!);
      keep();
      const now = server.doc(imageId);
      return { success: true, status_updated: false, status: 'annotating', new_count: now.annotations.length, version: now.version, saved_at: now.saved_at ?? '' };
    },
  };
  return { api, keep, restores };
}

async function setup(opts: { saver?: SaveManager; clock?: ReturnType<typeof fakeClock>; server?: FakeServer } = {}) {
  const clock = opts.clock ?? fakeClock();
  const server = opts.server ?? fakeServer(clock);
  const versions = versionsOf(server);
  if (!opts.server) {
    server.saveAs(IMG, [box('a', 0)]);
    versions.keep();
  }
  const manager = opts.saver ?? harness(clock, server, newIdb()).manager;
  const told: string[] = [];
  const role = roleHolder('annotator');
  const session = new EditorSession({
    projectId: PROJECT,
    orgId: 'org-1',
    role,
    saver: manager,
    live: liveStandIn,
    segmentation: { warmup: async () => ({}), health: async () => ({ status: 'healthy' }), process: async () => ({}), mask: async () => Promise.reject(new Error('none')) },
    annotations: versions.api,
    tell: (message) => void told.push(message),
    recordCreated: async () => undefined,
    timers: { setTimer: clock.setTimer, clearTimer: clock.clearTimer },
  });
  const { editor, history } = session;
  editor.setViewport({ width: 1000, height: 800 });
  history.previewEditor.setViewport({ width: 1000, height: 800 });
  const stop = session.start();
  history.setImage(IMG);
  const recovered: number[] = [];
  /** The screen's open path (useImageLoading), the History told as it goes; resolves once it is over. */
  const open = () =>
    new Promise<void>((done) => {
      openImage(session, {
        image,
        readOnly: false,
        opening: { ...history.opening, finished: (id) => (history.opening.finished(id), done()) },
        shownImage: () => IMG,
        progress: { clear: () => undefined, report: () => undefined },
        onReady: () => undefined,
        onRecovered: (n) => void recovered.push(n),
        onError: (err) => {
          throw err;
        },
        load: async () => ({ pixels: { source: 'pixels', width: 1000, height: 800 } as never, body: JSON.stringify(server.loaded(IMG)) }),
      });
    });
  const until = async (what: () => boolean) => {
    for (let i = 0; i < 400 && !what(); i++) await new Promise((r) => setTimeout(r, 5));
    expect(what()).toBe(true);
  };
  const saved = async () => {
    for (let i = 0; i < 4; i++) await clock.advance(3000);
  };
  /** The user places a keypoint (a new shape, saved like any edit). */
  const place = (x: number) => {
    editor.setTool('keypoint');
    editor.setActiveClass('eye');
    editor.pointerDown({ x, y: 100 });
    editor.pointerUp({ x, y: 100 });
  };
  const ids = (e = editor) => [...e.getOrderedIds()].sort();
  return { clock, server, manager, session, editor, history, versions, stop, open, until, saved, place, ids, told, recovered };
}

// The clipboard keeps copies in browser storage.
beforeEach(() => {
  (globalThis as { window?: unknown }).window = { localStorage: new MemoryStorage() };
});
afterEach(() => {
  delete (globalThis as { window?: unknown }).window;
});

describe('the History of the session', () => {

  it('shows an earlier version beside the document, and Back to current leaves the document, unsaved work included, as it was', async () => {
    const s = await setup();
    await s.open();
    s.place(500);
    const mine = s.ids();
    expect(mine).toHaveLength(2);
    s.history.choose(entry(1), false, true);
    expect(s.history.getState().preview).toMatchObject({ version: 1, phase: 'loading' });
    await s.until(() => s.history.getState().preview?.phase === 'ready');
    expect(s.history.getState()).toMatchObject({ shown: 1, preview: { count: 1 } });
    expect(s.ids(s.history.previewEditor)).toEqual(['a']);
    expect(s.ids()).toEqual(mine);
    // The user moved the view on the version: Back to current keeps it.
    s.history.previewEditor.setCamera({ x: 40, y: 30, scale: 2 });
    s.history.leave();
    expect(s.history.getState()).toMatchObject({ preview: null, shown: null });
    expect(s.editor.getCamera()).toEqual({ x: 40, y: 30, scale: 2 });
    expect(s.ids()).toEqual(mine);
    await s.saved();
    expect((s.server.doc(IMG).annotations as { id: string }[]).map((a) => a.id).sort()).toEqual(mine);
    s.stop();
  });

  it('while a version is shown, edits are refused with a word why, and a copy takes its shapes into the current document', async () => {
    const s = await setup();
    await s.open();
    s.place(500);
    await s.saved();
    s.versions.keep();
    s.editor.execute('delete', { ids: [...s.editor.getOrderedIds()] });
    s.history.choose(entry(1), false, true);
    await s.until(() => s.history.getState().preview?.phase === 'ready');
    s.session.undo();
    s.session.paste(IMG);
    expect(s.ids()).toEqual([]);
    expect(s.told).toEqual(['Viewing an earlier version. Go back to the current version to edit.', 'Viewing an earlier version. Go back to the current version to edit.']);
    s.session.selectAll();
    s.session.copy(IMG);
    expect(s.ids(s.history.previewEditor)).toEqual(['a']);
    s.history.leave();
    s.session.paste(IMG);
    expect(s.ids()).toHaveLength(1);
    expect(s.editor.getAnnotation(s.editor.getOrderedIds()[0]!)).toMatchObject({ type: 'box', class: 'car' });
    s.session.undo();
    expect(s.ids()).toEqual([]);
    s.stop();
  });

  it('restoring a version saves the pending work, makes the version a new one, and reopens the image with it where the user was looking', async () => {
    const s = await setup();
    await s.open();
    s.place(500);
    await s.saved();
    s.versions.keep();
    expect(s.server.doc(IMG).version).toBe(2);
    s.place(700); // not saved yet: the restore saves it first
    const answers: number[] = [];
    s.history.onRestored((_id, res) => answers.push(res.version));
    s.history.choose(entry(1), false, true);
    await s.until(() => s.history.getState().preview?.phase === 'ready');
    s.history.previewEditor.setCamera({ x: 12, y: 8, scale: 1.5 });
    s.history.openRestore(false);
    expect(s.history.getState().restoreOpen).toBe(true);
    const restoring = s.history.restore({ readOnly: false, currentVersion: 2, deniedReason: null });
    expect(s.history.getState().restoring).toBe(true);
    await s.saved();
    await restoring;
    // The pending shape went in version 3; the restore is version 4, on version 3.
    expect(s.versions.restores).toEqual([{ version: 1, base: 3 }]);
    expect(answers).toEqual([4]);
    expect(s.server.doc(IMG)).toMatchObject({ version: 4, annotations: [box('a', 0)] });
    expect(s.history.getState()).toMatchObject({ restoreOpen: false, restoring: false, reopenToken: 1 });
    // The screen opens the image again; the preview ends once the restored document is in.
    await s.open();
    expect(s.ids()).toEqual(['a']);
    expect(s.history.getState().preview).toBeNull();
    expect(s.editor.getCamera()).toEqual({ x: 12, y: 8, scale: 1.5 });
    expect(s.told).toContain('Restored version 1 as version 4');
    // Editing goes on from the restored version.
    s.place(300);
    await s.saved();
    expect(s.server.doc(IMG).version).toBe(5);
    s.stop();
  });

  it('a restore refused because someone saved meanwhile says so, restores nothing, and marks the list out of date', async () => {
    const s = await setup();
    await s.open();
    s.server.saveAs(IMG, [box('a', 0), box('z', 50)]); // another person, version 2
    const stale: string[] = [];
    s.history.onStale((id) => stale.push(id));
    s.history.choose(entry(1), false, true);
    await s.until(() => s.history.getState().preview?.phase === 'ready');
    await s.history.restore({ readOnly: false, currentVersion: 1, deniedReason: null });
    expect(s.history.getState()).toMatchObject({ restoreError: { message: 'Someone saved this image meanwhile; look at the history again.', retry: false }, reopenToken: 0, preview: { version: 1 } });
    expect(stale).toEqual([IMG]);
    expect(s.server.doc(IMG).version).toBe(2);
    s.stop();
  });

  it('a read-only role restores nothing, and a version no longer kept says so', async () => {
    const s = await setup();
    await s.open();
    s.history.choose(entry(1), false, true);
    await s.until(() => s.history.getState().preview?.phase === 'ready');
    s.history.openRestore(true);
    await s.history.restore({ readOnly: true, currentVersion: 1, deniedReason: 'Viewers cannot edit annotations' });
    expect(s.history.getState()).toMatchObject({ restoreOpen: false, restoring: false });
    expect(s.versions.restores).toEqual([]);
    s.history.choose(entry(7), false, true);
    await s.until(() => s.history.getState().preview?.phase === 'error');
    expect(s.history.getState().preview).toMatchObject({ version: 7, error: 'This version is no longer kept.', retryable: false });
    // Going to another image ends the preview.
    s.history.leaveImage(IMG);
    expect(s.history.getState().preview).toBeNull();
    s.stop();
  });
});

describe('Discard of recovered work', () => {
  it('drops the work this device kept: it is never sent, and the saved annotations come back', async () => {
    const clock = fakeClock();
    const server = fakeServer(clock);
    server.saveAs(IMG, [box('a', 0)]);
    const idb = newIdb();
    // An earlier visit's edit, kept on the device and never sent (the tab closed first).
    const first = harness(clock, server, idb);
    await first.manager.open({ imageId: IMG, projectId: PROJECT, imageFilename: image.filename }, server.loaded(IMG));
    fakeEditor(first.manager, IMG, [box('a', 0)]).upsert(box('kept', 300));
    await settle();
    first.manager.dispose();
    const s = await setup({ clock, server, saver: harness(clock, server, idb).manager });
    await s.open();
    expect(s.recovered).toEqual([1]);
    expect(s.ids()).toEqual(['a', 'kept']);
    let dropped = false;
    await s.session.discardRecovered(image, () => (dropped = true));
    expect(dropped).toBe(true);
    expect(s.ids()).toEqual(['a']);
    await s.saved();
    expect(server.calls).toHaveLength(0);
    expect(server.doc(IMG)).toMatchObject({ version: 1, annotations: [box('a', 0)] });
    // The document is saved again as usual after it.
    s.place(500);
    await s.saved();
    expect(server.doc(IMG).version).toBe(2);
    s.stop();
  });
});
