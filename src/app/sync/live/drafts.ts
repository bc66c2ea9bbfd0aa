// Other people's drafts on the open image (issue 35, docs/live.md "Drafts"): their edits not saved
// yet, shown at once in the live document as remote changes (Editor.applyRemote through the save
// link: never saved here, never in this user's undo history), and ended by what the server says.
// Each shape with a draft remembers what the server holds of it (what the editor showed before the
// first draft, moved on by every saved change applied since), so a draft that ends without its
// save shows that again: LIVE_DRAFT_LEAVE_GRACE_MS after its author leaves the image (tab closed,
// reloading, offline) or the socket closes, or when no save of it by its author came within
// LIVE_DRAFT_TIMEOUT_MS (refused, or lost), or at once when the author's merge dropped their edit
// of it for a later one (their `overlap`).
// The author's saved change confirms a draft it matches; a saved change older than the draft (the
// author kept editing) leaves the draft shown on top of it. Shapes the user edits here are theirs:
// drafts of them are forgotten, and a draft never replaces a shape the user changed lately.
import type { StoredAnnotation } from '../../../contract/annotations';
import { sameJson } from '../../../contract/json';
import { LIVE_DRAFT_LEAVE_GRACE_MS, LIVE_DRAFT_TIMEOUT_MS } from '../../../contract/live';

/** The live document's side: the shapes as it holds them, and remote changes into it. */
export interface DraftTarget {
  /** The shape as the document holds it now (the stored format), null when it has none of that id. */
  current(id: string): StoredAnnotation | null;
  /** Shapes into the live document as a change made elsewhere: not saved, not undoable. */
  apply(upserts: StoredAnnotation[], removed: string[]): void;
  /**
   * A saved shape in the form the document would give it (as a draft is made), null when the
   * document would leave it out. Without it, what a saved change holds is read from the document.
   */
  asShown?(saved: StoredAnnotation): StoredAnnotation | null;
}

export interface DraftClock {
  now(): number;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

/** A saved change the document took in (anyone's): its shapes are what the server holds now. */
export interface SavedChange {
  by: string | null;
  upserts: readonly StoredAnnotation[];
  removed_ids: readonly string[];
}

interface Draft {
  by: string;
  /** The draft's shape; null: the draft removes it. */
  shape: StoredAnnotation | null;
  /** What the server holds of the shape; null: nothing. */
  server: StoredAnnotation | null;
  /** When the draft ends unless a save of it came. */
  until: number;
}

export class PeerDrafts {
  private readonly drafts = new Map<string, Draft>();
  private timer: unknown = null;
  private timerAt = Infinity;

  constructor(
    private readonly target: DraftTarget,
    private readonly clock: DraftClock,
    /** The drafts shown changed (the screen marks them as unsaved). */
    private readonly onChange: () => void = () => undefined,
    private readonly timeoutMs = LIVE_DRAFT_TIMEOUT_MS,
    private readonly leaveGraceMs = LIVE_DRAFT_LEAVE_GRACE_MS,
  ) {}

  /** The shapes shown as drafts, each with its author's user id. */
  authors(): Map<string, string> {
    return new Map([...this.drafts].map(([id, d]) => [id, d.by]));
  }

  /** A draft from `by`: into the document now, except shapes `mine` says the user changed lately. */
  received(by: string, upserts: readonly StoredAnnotation[], removed: readonly string[], mine: (id: string) => boolean): void {
    const up = upserts.filter((a) => !mine(a.id));
    const rm = removed.filter((id) => !mine(id));
    if (!up.length && !rm.length) return;
    const until = this.clock.now() + this.timeoutMs;
    for (const a of up) this.note(a.id, by, a, until);
    for (const id of rm) this.note(id, by, null, until);
    this.target.apply(up, rm);
    // A draft back at what the server holds (an edit undone, a new shape removed before its save)
    // shows nothing unsaved, and no save of it will come (a save that changes nothing makes no
    // version): not a draft. Kept, it marked the saved shape as their unsaved edit until its timeout.
    for (const id of [...up.map((a) => a.id), ...rm]) {
      const d = this.drafts.get(id);
      if (d && sameJson(d.shape, d.server)) this.drafts.delete(id);
    }
    this.arm();
    this.onChange();
  }

  private note(id: string, by: string, shape: StoredAnnotation | null, until: number): void {
    const known = this.drafts.get(id);
    this.drafts.set(id, { by, shape, server: known ? known.server : this.target.current(id), until });
  }

  /**
   * A saved change went into the document: what the server holds of its shapes moves on. A draft
   * it matches (its author's, the same shape) is confirmed and ends; any other draft of those
   * shapes is newer than the save (the author kept editing, or another person saved first) and is
   * shown again on top.
   */
  saved(change: SavedChange): void {
    if (!this.drafts.size) return;
    const up: StoredAnnotation[] = [];
    const rm: string[] = [];
    const confirm = (id: string, saved: StoredAnnotation | null) => {
      const d = this.drafts.get(id);
      if (!d) return;
      // The saved shape in the form the editor gives (as the author's draft was made), so the two
      // compare. Taken from the change, not read from the document: a change heard again (the
      // document took it in before: `known`) finds the draft shown there on top of it, and that
      // draft, taken for the server's shape, was never put back when it ended.
      const server = saved === null ? null : this.target.asShown ? this.target.asShown(saved) : this.target.current(id);
      d.server = server;
      // A change of unknown authors (a catch-up's net change of several versions) that holds the
      // draft's very shape confirms it too: the author's save is among them, or the shape shows
      // nothing unsaved anyway (left, the draft marked a saved shape as unsaved until its timeout).
      if ((d.by === change.by || change.by === null) && sameJson(d.shape, server)) this.drafts.delete(id);
      else if (d.shape) up.push(d.shape);
      else if (server) rm.push(id);
    };
    for (const a of change.upserts) confirm(a.id, a);
    for (const id of change.removed_ids) confirm(id, null);
    if (up.length || rm.length) this.target.apply(up, rm);
    this.onChange();
  }

  /**
   * `by`'s save met a later edit of these shapes and their merge dropped their own (their live
   * `overlap`): their drafts of them are never saved, and end now (the server's shape shows).
   * Left, each showed the dropped edit over the saved shape until its timeout.
   */
  dropped(by: string, ids: Iterable<string>): void {
    const which = new Set(ids);
    this.end((d, id) => d.by === by && which.has(id));
  }

  /** The user changed these shapes here: their edit now (saved by them), no longer a draft. */
  edited(ids: Iterable<string>): void {
    let any = false;
    for (const id of ids) any = this.drafts.delete(id) || any;
    if (any) this.onChange();
  }

  /**
   * The people on the image now: drafts of anyone else (they left, closed the tab, went offline, or
   * this socket closed) end within the leave grace unless a save confirms them first. Not at once:
   * a tab sends its unsaved work as it goes (and a reloading one as it comes back), and the server
   * may see the socket close before that save lands; ending the draft then would take the shape out
   * of this document (and out of the user's selection) until the save puts it back.
   */
  peers(userIds: ReadonlySet<string>): void {
    const until = this.clock.now() + this.leaveGraceMs;
    let sooner = false;
    for (const d of this.drafts.values()) {
      if (userIds.has(d.by) || d.until <= until) continue;
      d.until = until;
      sooner = true;
    }
    if (sooner) this.arm();
  }

  /** Every draft ends (the socket closed, the image is left): the document shows what the server holds. */
  clear(): void {
    this.end(() => true);
  }

  /** The image leaves the editor: its drafts are forgotten, nothing goes into the document. */
  forget(): void {
    this.drafts.clear();
    this.arm();
  }

  /** Ends the drafts `which` picks: their shapes go back to what the server holds. */
  private end(which: (d: Draft, id: string) => boolean): void {
    const up: StoredAnnotation[] = [];
    const rm: string[] = [];
    let ended = 0;
    for (const [id, d] of this.drafts) {
      if (!which(d, id)) continue;
      ended++;
      this.drafts.delete(id);
      // Already what the server holds (the draft was the saved shape): nothing to put back.
      if (sameJson(this.target.current(id), d.server)) continue;
      if (d.server) up.push(d.server);
      else rm.push(id);
    }
    if (!ended) return;
    if (up.length || rm.length) this.target.apply(up, rm);
    this.arm();
    this.onChange();
  }

  /** One timer, at the first draft's end. */
  private arm(): void {
    let first = Infinity;
    for (const d of this.drafts.values()) first = Math.min(first, d.until);
    if (first === this.timerAt) return;
    if (this.timer !== null) this.clock.clearTimer(this.timer);
    this.timer = null;
    this.timerAt = first;
    if (first === Infinity) return;
    this.timer = this.clock.setTimer(
      () => {
        this.timer = null;
        this.timerAt = Infinity;
        const now = this.clock.now();
        this.end((d) => d.until <= now);
        this.arm();
      },
      Math.max(0, first - this.clock.now()),
    );
  }
}
