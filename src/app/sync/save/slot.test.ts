// One image's saving state on its own: entries and their merge base, the net delta a save sends,
// rebasing onto a newer server version (what a save or a 409 does to the entries left), and the
// top bar's word. The pipeline around them is tested in manager.test.ts.
import { describe, expect, it } from 'vitest';
import { gatherEntries, recoveryBase } from './recovery';
import { computeStatus, docOf, editTimes, giveBack, netDelta, newEntry, newSlot, rebase, rebaseWithDropped, replaceDelta, settledIds, takeForSave, type Slot } from './slot';
import type { PendingEntry } from './store';
import { box } from '../../../../tests/support/saveTestkit';

const ref = { imageId: 'img', projectId: 'p', imageFilename: 'a.png' };
let n = 0;
const stamp = (at = 1000, offset = 0) => ({ key: `t:${String(++n).padStart(3, '0')}`, at, offset });
const slotOn = (shapes = [box('a'), box('b')], version = 3): Slot => newSlot(ref, docOf(shapes, version, null));

describe('entries', () => {
  it('keep the server shape of every id they touch as their merge base (null when absent)', () => {
    const s = slotOn();
    const e = newEntry(s, { upserts: [box('a', 5), box('new')], removed: ['b'] }, stamp(), false);
    expect(e).toMatchObject({ imageId: 'img', projectId: 'p', imageFilename: 'a.png', baseVersion: 3, at: 1000 });
    expect(e.before).toEqual({ a: box('a'), new: null, b: box('b') });
    expect(e.local).toBeUndefined();
    expect(newEntry(s, { upserts: [], removed: ['a'] }, stamp(), true).local).toBe(true);
  });
});

describe('netDelta', () => {
  it('adds entries up in order: the last write of a shape wins, changed then removed goes as its id alone, removed then drawn again goes as the shape', () => {
    const s = slotOn();
    const entries = [
      newEntry(s, { upserts: [box('a', 1), box('c')], removed: [] }, stamp()),
      newEntry(s, { upserts: [box('a', 2)], removed: ['c', 'b'] }, stamp()),
      newEntry(s, { upserts: [box('b', 9)], removed: [] }, stamp()),
    ];
    const net = netDelta(entries);
    expect(net.upserts).toEqual([box('a', 2), box('b', 9)]);
    expect(net.removed).toEqual(['c']);
    expect([...net.touched].sort()).toEqual(['a', 'b', 'c']);
  });

  it('is what a save sends, on the version the entries build on; giving the work back puts it in front of newer work', () => {
    const s = slotOn();
    const first = newEntry(s, { upserts: [box('a', 1)], removed: [] }, stamp());
    s.pending.push(first);
    s.needsSave = true;
    const p = takeForSave(s, () => 42);
    expect(p.body).toEqual({ image_id: 'img', project_id: 'p', image_filename: 'a.png', base_version: 3, upserts: [box('a', 1)], removed_ids: [] });
    expect(p.sentAt).toBe(42);
    expect([s.inFlight.length, s.pending.length, s.needsSave, s.phase]).toEqual([1, 0, false, 'saving']);
    const later = newEntry(s, { upserts: [], removed: ['b'] }, stamp());
    s.pending.push(later);
    giveBack(s);
    expect(s.pending.map((e) => e.key)).toEqual([first.key, later.key]);
    expect([s.inFlight.length, s.needsSave]).toEqual([0, true]);
  });
});

describe('rebase', () => {
  it('moves entries onto a newer server document: its version, and its shapes as their merge base', () => {
    const s = slotOn();
    const e = newEntry(s, { upserts: [box('a', 1)], removed: ['b'] }, stamp());
    const newer = docOf([box('a', 7), box('c')], 5, null);
    const [moved] = rebase(newer, [e]);
    expect(moved).toMatchObject({ key: e.key, baseVersion: 5, upserts: [box('a', 1)], removed: ['b'] });
    expect(moved!.before).toEqual({ a: box('a', 7), b: null });
    expect(e.baseVersion).toBe(3); // the entry itself is left as it was
  });

  it('drops the ids the server already holds, and entries left empty; rebaseWithDropped names the entries that went', () => {
    const s = slotOn();
    const one = newEntry(s, { upserts: [box('a', 1)], removed: [] }, stamp());
    const two = newEntry(s, { upserts: [box('c')], removed: ['b'] }, stamp());
    const kept = rebase(docOf([box('a', 1)], 4, null), [one, two], new Set(['a', 'b']));
    expect(kept.map((e) => e.key)).toEqual([two.key]);
    expect(kept[0]).toMatchObject({ upserts: [box('c')], removed: [], before: { c: null } });
    const { rebased, dropped } = rebaseWithDropped(docOf([box('a', 1)], 4, null), [one, two], new Set(['a', 'b']));
    expect(rebased).toEqual(kept);
    expect(dropped).toEqual([one.key]);
    expect(rebaseWithDropped(docOf([], 4, null), [one, two]).dropped).toEqual([]);
  });

  it('settledIds names the touched ids whose wanted shape is already the server\'s (after a 409: the other side won, or both made the same change)', () => {
    const s = slotOn();
    const entries = [newEntry(s, { upserts: [box('a', 1), box('c', 2)], removed: ['b'] }, stamp())];
    const want = new Map([
      ['a', box('a', 1)],
      ['c', box('c', 3)],
    ]);
    const server = new Map([
      ['a', box('a', 1)],
      ['c', box('c', 2)],
    ]);
    // a: the same on both; b: removed here and absent there; c: the merge wants another shape.
    expect([...settledIds(entries, want, server)].sort()).toEqual(['a', 'b']);
  });
});

describe('edit times and replace-all', () => {
  it('editTimes keeps each shape\'s last change, in server time', () => {
    const s = slotOn();
    const entries = [newEntry(s, { upserts: [box('a')], removed: ['b'] }, stamp(1000, 50)), newEntry(s, { upserts: [box('a', 1)], removed: [] }, stamp(2000, -10))];
    expect(editTimes(entries)).toEqual(
      new Map([
        ['a', 1990],
        ['b', 1050],
      ]),
    );
  });

  it('replaceDelta removes every shape the device knows (server and pending) that the new document lacks', () => {
    const s = slotOn([box('a'), box('b')]);
    s.pending.push(newEntry(s, { upserts: [box('c')], removed: [] }, stamp()));
    expect(replaceDelta(s, { upserts: [box('b', 1)], removed: [] })).toEqual({ upserts: [box('b', 1)], removed: ['a', 'c'] });
  });
});

describe('recovery', () => {
  const entry = (over: Partial<PendingEntry>): PendingEntry => ({ key: 'k', imageId: 'img', projectId: 'p', imageFilename: 'a.png', at: 0, offset: 0, baseVersion: 1, upserts: [], removed: [], before: {}, ...over });

  it('gatherEntries takes this tab\'s copy of an entry over the stored one, adds the ones not stored yet, oldest first', () => {
    const s = slotOn();
    const stored = [entry({ key: 'x:1', at: 5, upserts: [box('a')] }), entry({ key: 'x:2', at: 1 })];
    s.pending = [entry({ key: 'x:1', at: 5, upserts: [box('a', 9)] }), entry({ key: 'x:3', at: 3 })];
    const out = gatherEntries(stored, s);
    expect(out.map((e) => e.key)).toEqual(['x:2', 'x:3', 'x:1']);
    expect(out[2]!.upserts).toEqual([box('a', 9)]);
    expect(gatherEntries(stored, undefined).map((e) => e.key)).toEqual(['x:2', 'x:1']);
  });

  it('recoveryBase puts back the shapes the entries started from when the server moved on, and the server\'s own where it did not', () => {
    const server = docOf([box('a', 7), box('b')], 2, null);
    const list = [...server.shapes.values()];
    const old = [entry({ baseVersion: 1, before: { a: box('a'), gone: box('gone'), n: null } })];
    expect(recoveryBase(old, server, list)).toEqual([box('a'), box('b'), box('gone')]);
    const current = [entry({ baseVersion: 2, before: { a: box('a') } })];
    expect(recoveryBase(current, server, list)).toEqual(list);
  });
});

describe('computeStatus', () => {
  it('says the most urgent state of the images with work, and Saved when none has any', () => {
    const a = slotOn();
    const b = newSlot({ ...ref, imageId: 'b' }, docOf([], 0, null));
    expect(computeStatus([a, b], false)).toEqual({ state: 'saved', label: 'Saved', unsavedImages: 0 });
    expect(computeStatus([a, b], true).state).toBe('conflict-merged');
    a.needsSave = true;
    a.phase = 'pending';
    expect(computeStatus([a, b], true)).toEqual({ state: 'pending', label: 'Unsaved changes', unsavedImages: 1 });
    b.needsSave = true;
    b.phase = 'offline';
    expect(computeStatus([a, b], false).state).toBe('offline');
    a.phase = 'error';
    a.message = 'Too large';
    expect(computeStatus([a, b], false)).toEqual({ state: 'error', label: 'Save failed - changes kept on this device', detail: 'Too large', unsavedImages: 2 });
    b.phase = 'needs-sign-in';
    expect(computeStatus([a, b], false).state).toBe('needs-sign-in');
  });
});
