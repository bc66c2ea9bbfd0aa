// Reviewing a model's predictions on the open image (issue 34), as `editor.predictions`: the
// pending ones (kept up to date from document changes), the score filter that hides those below a
// score (hidden as the eye button hides: not drawn, not hit, not selectable), Accept all / Reject
// all (one undo step each), stepping through them (select and centre) and the review keys (Enter
// accepts the selected ones, Delete rejects them, then the next is selected). Every change is a
// command (accept-predictions, reject-predictions), so undo and live sync see ordinary edits.
import type { DocState, ChangedIds } from './model/document';
import { getAnnotation } from './model/document';
import { isPending, pendingScore } from './model/prediction';
import type { ToolApi } from './tools/types';

/** What the review needs of the editor. */
export interface PredictionsHost {
  readonly api: Pick<ToolApi, 'doc' | 'view' | 'execute' | 'setSelection'>;
  /** Paint-order key of an annotation (larger is newer, listed first). */
  z(id: string): number | undefined;
  /** Centres the view on a shape. */
  centre(id: string): void;
  /** The set the score filter hides changed: the editor updates view.hidden. */
  filterChanged(): void;
}

const NONE: ReadonlySet<string> = new Set();

export class Predictions {
  private min = 0;
  private readonly pendingIds = new Set<string>();
  private below: ReadonlySet<string> = NONE;

  constructor(private readonly host: PredictionsHost) {}

  /** The score under which pending predictions are hidden (0: none hidden). */
  get minScore(): number {
    return this.min;
  }

  /** Hides pending predictions scored under `score` (0..1). */
  setMinScore(score: number): void {
    const v = Math.min(1, Math.max(0, Number.isFinite(score) ? score : 0));
    if (v === this.min) return;
    this.min = v;
    if (this.refilter()) this.host.filterChanged();
  }

  /** Pending predictions the score filter hides now. */
  get hiddenByScore(): ReadonlySet<string> {
    return this.below;
  }

  /** Follows a document change; true when the set the filter hides changed. */
  update(doc: DocState, change: ChangedIds): boolean {
    if (change.all) {
      this.pendingIds.clear();
      for (const shard of doc.items) for (const [id, a] of shard) if (isPending(a)) this.pendingIds.add(id);
    } else {
      for (const id of change.ids) {
        if (isPending(getAnnotation(doc, id))) this.pendingIds.add(id);
        else this.pendingIds.delete(id);
      }
    }
    return this.refilter();
  }

  private refilter(): boolean {
    const doc = this.host.api.doc();
    let next: Set<string> | null = null;
    if (this.min > 0) {
      for (const id of this.pendingIds) {
        const score = pendingScore(getAnnotation(doc, id));
        if (score !== null && score < this.min) (next ??= new Set()).add(id);
      }
    }
    const below = next ?? NONE;
    if (below.size === this.below.size && [...below].every((id) => this.below.has(id))) return false;
    this.below = below;
    return true;
  }

  /** Pending predictions in the annotation list's order (newest first); `shownOnly`: those the score filter keeps. */
  pending(shownOnly = false): string[] {
    const ids = [...this.pendingIds].filter((id) => !shownOnly || !this.below.has(id));
    return ids.sort((a, b) => (this.host.z(b) ?? 0) - (this.host.z(a) ?? 0));
  }

  /** How many are pending, and how many of them the score filter shows. */
  counts(): { pending: number; shown: number } {
    return { pending: this.pendingIds.size, shown: this.pendingIds.size - this.below.size };
  }

  /** Accept all: the pending predictions shown (at or above the score), one undo step; returns how many (0 when read-only). */
  acceptAll(): number {
    return this.accept(this.pending(true));
  }

  /** Reject all: every pending prediction of the image, those the score hides too, one undo step; returns how many (0 when read-only). */
  rejectAll(): number {
    return this.reject(this.pending());
  }

  /** Accepts these pending predictions (the selected ones by default), one undo step. */
  accept(ids: readonly string[] = this.selectedPending()): number {
    const todo = ids.filter((id) => this.pendingIds.has(id));
    if (!todo.length || this.host.api.view().readOnly) return 0;
    this.host.api.execute('accept-predictions', { ids: todo });
    return todo.length;
  }

  /** Rejects (deletes) these pending predictions (the selected ones by default), one undo step. */
  reject(ids: readonly string[] = this.selectedPending()): number {
    const todo = ids.filter((id) => this.pendingIds.has(id));
    if (!todo.length || this.host.api.view().readOnly) return 0;
    this.host.api.execute('reject-predictions', { ids: todo });
    return todo.length;
  }

  /**
   * Selects the next pending prediction shown (dir 1) or the previous one (-1), in list order after
   * the selection (from the start without one, wrapping around), and centres the view on it.
   * Returns its id, or null when none is pending.
   */
  step(dir: 1 | -1 = 1): string | null {
    const next = this.nextAfter(this.host.api.view().selected, dir);
    if (next === null) return null;
    this.host.api.setSelection([next]);
    this.host.centre(next);
    return next;
  }

  /**
   * The review keys on a selection of pending predictions only: Enter accepts them, Delete
   * rejects them, then the next pending one is selected. False (the key is not taken) otherwise.
   */
  reviewKey(key: 'Enter' | 'Delete'): boolean {
    const { selected, readOnly } = this.host.api.view();
    if (readOnly || selected.size === 0 || ![...selected].every((id) => this.pendingIds.has(id))) return false;
    const next = this.nextAfter(selected, 1);
    if (key === 'Enter') this.accept([...selected]);
    else this.reject([...selected]);
    this.host.api.setSelection(next === null ? [] : [next]);
    if (next !== null) this.host.centre(next);
    return true;
  }

  private selectedPending(): string[] {
    return [...this.host.api.view().selected].filter((id) => this.pendingIds.has(id));
  }

  /** The pending prediction shown after (or before) `from` in list order, `from` itself left out. */
  private nextAfter(from: ReadonlySet<string>, dir: 1 | -1): string | null {
    const list = this.pending(true);
    const candidates = list.filter((id) => !from.has(id));
    if (!candidates.length) return null;
    const at = list.findIndex((id) => from.has(id));
    if (at < 0) return dir === 1 ? candidates[0]! : candidates[candidates.length - 1]!;
    for (let k = 1; k <= list.length; k++) {
      const id = list[(at + dir * k + list.length * k) % list.length]!;
      if (!from.has(id)) return id;
    }
    return null;
  }
}
