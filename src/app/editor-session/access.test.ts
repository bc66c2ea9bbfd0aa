// What the member's role allows in the editor session, with the real engine and save link, the
// save manager on a fake clock and in-memory server: a role without annotations.write gets a
// read-only editor (a click with a drawing tool creates nothing, pasting and Remove All do
// nothing), with the words why; a role changed elsewhere reaches an open editor.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Role } from '../../contract/account';
import { editorAccess } from './access';
import { box, fakeClock, fakeServer, harness, newIdb } from '../../../tests/support/saveTestkit';
import { MemoryStorage, PROJECT, roleHolder, testSession } from '../../../tests/support/sessionTestkit';

const IMG = '00000000-0000-4000-8000-000000000001';
const ref = { imageId: IMG, projectId: PROJECT, imageFilename: 'lot.png' };

async function setup(initial: Role | null) {
  const clock = fakeClock();
  const server = fakeServer(clock);
  server.saveAs(IMG, [box('a', 0)]);
  const { manager } = harness(clock, server, newIdb());
  const role = roleHolder(initial);
  const session = testSession(clock, manager, { role });
  const { editor } = session;
  editor.setImageSize({ width: 1000, height: 800 });
  editor.setViewport({ width: 1000, height: 800 });
  const stop = session.start();
  const loaded = server.loaded(IMG);
  await session.link.load(loaded.annotations);
  // A member who may not edit has no save slot (openImage.ts); one who may is attached.
  if (!session.access.get().readOnly) {
    session.link.expect(IMG);
    await manager.open(ref, loaded);
    session.link.attach(ref);
  }
  /** A click with the keypoint tool: the id of the shape it created, or null. */
  const click = (x: number): string | null => {
    const before = new Set(editor.getOrderedIds());
    editor.setTool('keypoint');
    editor.setActiveClass('eye');
    editor.pointerDown({ x, y: 60 });
    editor.pointerUp({ x, y: 60 });
    return editor.getOrderedIds().find((id) => !before.has(id)) ?? null;
  };
  return { session, editor, role, stop, click };
}

describe("the editor session's access", () => {
  beforeEach(() => {
    (globalThis as { window?: unknown }).window = { localStorage: new MemoryStorage() };
  });
  afterEach(() => {
    delete (globalThis as { window?: unknown }).window;
  });

  it('says what each role may do, and why not', () => {
    expect(editorAccess('owner')).toEqual({ readOnly: false, viewOnlyReason: null, stageDeniedReason: null });
    expect(editorAccess('reviewer')).toEqual({ readOnly: false, viewOnlyReason: null, stageDeniedReason: null });
    expect(editorAccess('annotator')).toEqual({ readOnly: false, viewOnlyReason: null, stageDeniedReason: 'Your role (Annotator) cannot set the stage' });
    expect(editorAccess('viewer')).toEqual({ readOnly: true, viewOnlyReason: 'Your role (Viewer) cannot edit annotations', stageDeniedReason: 'Your role (Viewer) cannot set the stage' });
    // Not a member of the project's organization (or not known yet): nothing.
    expect(editorAccess(null)).toEqual({ readOnly: true, viewOnlyReason: 'Your role (member) cannot edit annotations', stageDeniedReason: 'Your role (member) cannot set the stage' });
  });

  it("a viewer's editor refuses edits: a click draws nothing, paste and Remove All do nothing", async () => {
    const s = await setup('viewer');
    const off = s.session.followRole();
    expect(s.click(50)).toBeNull();
    s.editor.setTool('select');
    s.editor.select(['a']);
    s.session.copy(IMG);
    s.session.paste(IMG);
    expect(s.session.removeAll()).toBe(0);
    expect(s.editor.getOrderedIds()).toEqual(['a']);
    off();
    s.stop();
  });

  it("an annotator's editor edits", async () => {
    const s = await setup('annotator');
    const off = s.session.followRole();
    expect(s.click(50)).not.toBeNull();
    expect(s.session.removeAll(false)).toBe(2);
    off();
    s.stop();
  });

  it('follows a role changed elsewhere while the editor is open, telling its readers once per change of access', async () => {
    const s = await setup('annotator');
    const off = s.session.followRole();
    const seen: (string | null)[] = [];
    const unsubscribe = s.session.access.subscribe(() => seen.push(s.session.access.get().viewOnlyReason));
    const first = s.session.access.get();
    // Something else in the profile changed, not the role: the same access, nobody told.
    s.role.set('annotator');
    expect(s.session.access.get()).toBe(first);
    s.role.set('viewer');
    expect(seen).toEqual(['Your role (Viewer) cannot edit annotations']);
    expect(s.click(50)).toBeNull();
    s.role.set('admin');
    expect(seen).toEqual(['Your role (Viewer) cannot edit annotations', null]);
    expect(s.click(80)).not.toBeNull();
    unsubscribe();
    off();
    s.stop();
  });

  it('no longer moves the editor once it stops following the role', async () => {
    const s = await setup('annotator');
    const off = s.session.followRole();
    off();
    s.role.set('viewer');
    // The engine was not told; the session's own commands still read the role.
    expect(s.click(50)).not.toBeNull();
    expect(s.session.removeAll()).toBe(0);
    s.stop();
  });
});
