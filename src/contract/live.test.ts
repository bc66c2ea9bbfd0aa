// The colours of the people on one image (live co-editing, issue 20): peerColors / withPeerColors;
// and the project watch (issue 30): watch_project and project_changed as the schemas read them.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { LiveServerMessage, parseClientMessage, PEER_COLORS, peerColor, peerColors, withPeerColors } from './live';

/** Uuids whose own colours (peerColor) are PEER_COLORS[0..n-1] in turn, and more uuids of the same colours as asked. */
function idsOfColors(colors: readonly number[]): string[] {
  const out: (string | null)[] = colors.map(() => null);
  while (out.includes(null)) {
    const id = randomUUID();
    const i = out.findIndex((o, k) => o === null && peerColor(id) === PEER_COLORS[colors[k]!]);
    if (i >= 0) out[i] = id;
  }
  return out as string[];
}

/** A seeded shuffle (the tests see the same orders every run). */
function shuffled<T>(list: readonly T[], seed: number): T[] {
  const out = [...list];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const byIdOrder = (ids: readonly string[]) => [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

describe('peerColors', () => {
  it('gives two people whose own colours collide different colours: the first by user id keeps it, the other takes the next free one', () => {
    const [x, y] = byIdOrder(idsOfColors([3, 3]));
    const colors = peerColors([y!, x!]);
    expect(colors.get(x!)).toBe(PEER_COLORS[3]);
    expect(colors.get(y!)).toBe(PEER_COLORS[4]);
  });

  it('keeps everyone in their own colour while nobody shares one', () => {
    const ids = idsOfColors([0, 5, 9]);
    expect([...peerColors(ids)].map(([id, c]) => [id, c]).sort()).toEqual(ids.map((id) => [id, peerColor(id)]).sort());
  });

  it('gives up to ten people ten different colours, the same whatever the order of the list (and with repeats)', () => {
    for (let n = 2; n <= PEER_COLORS.length; n++) {
      // Everyone of the same own colour: the hardest case.
      const same = idsOfColors(new Array<number>(n).fill(7));
      // Random people.
      const random = Array.from({ length: n }, () => randomUUID());
      for (const ids of [same, random]) {
        const colors = peerColors(ids);
        expect(new Set(colors.values()).size).toBe(n);
        for (const c of colors.values()) expect(PEER_COLORS).toContain(c);
        for (let seed = 1; seed <= 5; seed++) expect(peerColors([...shuffled(ids, seed), ids[0]!])).toEqual(colors);
      }
    }
  });

  it('past ten people the others keep their own colours; the first ten stay distinct', () => {
    const ids = byIdOrder(idsOfColors(new Array<number>(12).fill(2)));
    const colors = peerColors(ids);
    expect(new Set(ids.slice(0, 10).map((id) => colors.get(id))).size).toBe(10);
    expect(ids.slice(10).map((id) => colors.get(id))).toEqual([PEER_COLORS[2], PEER_COLORS[2]]);
  });

  it('when one person leaves, everyone who had their own colour keeps it, and the rest stay distinct', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const n = 2 + (seed % 9);
      const ids = shuffled(idsOfColors(Array.from({ length: n }, (_, i) => (seed * (i + 3)) % 7)), seed);
      const before = peerColors(ids);
      const leaver = ids[seed % n]!;
      const after = peerColors(ids.filter((id) => id !== leaver));
      expect(new Set(after.values()).size).toBe(n - 1);
      for (const id of ids) if (id !== leaver && before.get(id) === peerColor(id)) expect(after.get(id)).toBe(before.get(id));
    }
  });

  it('someone who had to move keeps the colour they moved to when a person of another colour leaves', () => {
    const [x, y] = byIdOrder(idsOfColors([1, 1]));
    const [z] = idsOfColors([6]);
    const before = peerColors([x!, y!, z!]);
    expect(before.get(y!)).toBe(PEER_COLORS[2]);
    expect(peerColors([x!, y!])).toEqual(new Map([[x!, before.get(x!)], [y!, before.get(y!)]]));
    // When the one they gave way to leaves, they get their own colour back.
    expect(peerColors([y!, z!]).get(y!)).toBe(PEER_COLORS[1]);
  });
});

describe('withPeerColors', () => {
  it('sets each peer its colour from the whole list, keeping the list and its order', () => {
    const [x, y] = byIdOrder(idsOfColors([4, 4]));
    const peers = [
      { user_id: y!, name: 'Y', color: peerColor(y!), can_edit: true },
      { user_id: x!, name: 'X', color: peerColor(x!), can_edit: false },
    ];
    expect(withPeerColors(peers)).toEqual([
      { user_id: y!, name: 'Y', color: PEER_COLORS[5], can_edit: true },
      { user_id: x!, name: 'X', color: PEER_COLORS[4], can_edit: false },
    ]);
    expect(peers[0]!.color).toBe(PEER_COLORS[4]); // the input is not changed
  });
});

describe('project watch messages', () => {
  it('takes watch_project with a project id or null, and refuses anything else', () => {
    const id = randomUUID();
    expect(parseClientMessage(JSON.stringify({ type: 'watch_project', project_id: id }))).toEqual({ ok: true, message: { type: 'watch_project', project_id: id } });
    expect(parseClientMessage(JSON.stringify({ type: 'watch_project', project_id: null }))).toMatchObject({ ok: true });
    for (const bad of [{ type: 'watch_project' }, { type: 'watch_project', project_id: 'nope' }, { type: 'watch_project', project_id: id, extra: 1 }]) {
      expect(parseClientMessage(JSON.stringify(bad))).toMatchObject({ ok: false, tooLarge: false });
    }
  });

  it('reads project_changed, watching_project and a not_found naming the project', () => {
    const id = randomUUID();
    expect(LiveServerMessage.parse({ type: 'project_changed', project_id: id, reason: 'import_finished' })).toEqual({ type: 'project_changed', project_id: id, reason: 'import_finished' });
    expect(LiveServerMessage.safeParse({ type: 'project_changed', project_id: id, reason: 'something' }).success).toBe(false);
    expect(LiveServerMessage.parse({ type: 'watching_project', project_id: null })).toEqual({ type: 'watching_project', project_id: null });
    expect(LiveServerMessage.parse({ type: 'error', code: 'not_found', project_id: id })).toEqual({ type: 'error', code: 'not_found', project_id: id });
  });
});
