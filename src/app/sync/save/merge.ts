// Three-way merge of annotation documents over annotation ids (issue 5: "a conflict is resolved,
// not overwritten"). base = the last server document this device knew, ours = this device's list,
// theirs = the server's current list. A shape changed on one side only keeps that change; a shape
// changed on both sides (a deletion counts as a change) keeps the later edit and is reported.
import type { StoredAnnotation } from '../../../contract/annotations';
import { sameJson } from '../../../contract/json';

export { sameJson } from '../../../contract/json';

export function byId(list: readonly StoredAnnotation[]): Map<string, StoredAnnotation> {
  const m = new Map<string, StoredAnnotation>();
  for (const a of list) m.set(a.id, a);
  return m;
}

export interface MergeTimes {
  /** When this device last changed the shape, in server time (ms). */
  oursAt(id: string): number;
  /** When the server's current document was saved (ms), null if never. */
  theirsAt: number | null;
  /**
   * Ids this device's changes removed. One the base lacks is still this side's change (a
   * deletion): the shape was drawn here and its save applied, but its answer was lost, so the
   * server holds it and the base does not. Compared with the base alone, ours would look
   * unchanged and the server's copy would come back.
   */
  removed?: ReadonlySet<string>;
  /**
   * True when this device's changes once made the shape `shape` (an entry carried it): the
   * server's copy is then this device's own save whose answer was lost, not another person's
   * edit, and this side's later state of it wins, whenever the document was saved since.
   */
  mine?(id: string, shape: StoredAnnotation): boolean;
}

export interface Merged {
  annotations: StoredAnnotation[];
  /** Ids changed on both sides differently; the later edit won. */
  conflicts: string[];
  /** Ids of conflicts where the server's side won (this device's change was dropped). */
  theirsWon: string[];
}

export function merge3(base: readonly StoredAnnotation[], ours: readonly StoredAnnotation[], theirs: readonly StoredAnnotation[], times: MergeTimes): Merged {
  const b = byId(base);
  const o = byId(ours);
  const t = byId(theirs);
  const keep = new Map<string, StoredAnnotation>();
  const conflicts: string[] = [];
  const theirsWon: string[] = [];
  const ids = new Set<string>([...o.keys(), ...t.keys(), ...b.keys()]);
  for (const id of ids) {
    const bv = b.get(id);
    const ov = o.get(id);
    const tv = t.get(id);
    const oursChanged = !sameJson(ov, bv) || (ov === undefined && !!times.removed?.has(id));
    const theirsChanged = !sameJson(tv, bv);
    let pick: StoredAnnotation | undefined;
    if (theirsChanged && tv !== undefined && !sameJson(ov, tv) && times.mine?.(id, tv)) pick = ov;
    else if (!oursChanged) pick = tv;
    else if (!theirsChanged || sameJson(ov, tv)) pick = ov;
    else {
      conflicts.push(id);
      // Ties go to this device: the person looking at the screen made it.
      const oursLater = times.theirsAt === null || times.oursAt(id) >= times.theirsAt;
      pick = oursLater ? ov : tv;
      if (!oursLater) theirsWon.push(id);
    }
    if (pick) keep.set(id, pick);
  }

  // Paint order: ours, with shapes only the server has inserted after their predecessor there.
  const out: StoredAnnotation[] = [];
  const placed = new Set<string>();
  for (const a of ours) {
    const v = keep.get(a.id);
    if (v && !placed.has(a.id)) {
      out.push(v);
      placed.add(a.id);
    }
  }
  let insertAt = 0;
  for (const a of theirs) {
    if (placed.has(a.id)) {
      insertAt = out.findIndex((x) => x.id === a.id) + 1;
      continue;
    }
    const v = keep.get(a.id);
    if (!v) continue;
    out.splice(insertAt, 0, v);
    placed.add(a.id);
    insertAt++;
  }
  // Shapes kept from neither list's order (only possible for ids in base alone): none survive.
  return { annotations: out, conflicts, theirsWon };
}

/** The list with a delta applied: upserts replace in place or append; removals drop. */
/** The server's changes since a version, applied as the server applied them: removals first, then upserts (in place, or on top). */
export function applyServerChanges(list: readonly StoredAnnotation[], upserts: Iterable<StoredAnnotation>, removed: Iterable<string>): StoredAnnotation[] {
  return applyDelta(applyDelta(list, [], removed), upserts, []);
}

export function applyDelta(list: readonly StoredAnnotation[], upserts: Iterable<StoredAnnotation>, removed: Iterable<string>): StoredAnnotation[] {
  const gone = new Set(removed);
  const up = new Map<string, StoredAnnotation>();
  for (const a of upserts) {
    up.set(a.id, a);
    gone.delete(a.id);
  }
  const out: StoredAnnotation[] = [];
  for (const a of list) {
    if (gone.has(a.id)) continue;
    const u = up.get(a.id);
    if (u) {
      out.push(u);
      up.delete(a.id);
    } else out.push(a);
  }
  for (const a of up.values()) out.push(a);
  return out;
}

/** How many shapes differ between two lists (added, removed or changed). */
export function countDifferences(a: readonly StoredAnnotation[], b: readonly StoredAnnotation[]): number {
  const am = byId(a);
  const bm = byId(b);
  let n = 0;
  for (const [id, v] of am) if (!sameJson(v, bm.get(id))) n++;
  for (const id of bm.keys()) if (!am.has(id)) n++;
  return n;
}

/** The delta that turns `from` into `to` (shapes added or changed, ids removed). */
export function deltaBetween(from: readonly StoredAnnotation[], to: readonly StoredAnnotation[]): { upserts: StoredAnnotation[]; removed: string[] } {
  const fm = byId(from);
  const tm = byId(to);
  const upserts = to.filter((a) => !sameJson(a, fm.get(a.id)));
  const removed = [...fm.keys()].filter((id) => !tm.has(id));
  return { upserts, removed };
}
