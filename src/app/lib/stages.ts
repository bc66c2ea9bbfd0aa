// The names of the image stages, in one place (spec section 4 "Image status": new ('Not Started'),
// annotating ('In Progress', labelled Review in the stage picker), complete). Everything that shows
// a status or offers to set one takes its words from here, so the tiles, the filters, the Data tab's
// Stage menu and the editor's stage picker name the same state the same way.
//
//   statusLabel(status)   the status as a tile, a filter or a count shows it: 'In Progress'
//   STAGE_OPTIONS         the stage picker's entries, in stage order: { status, label, detail };
//                         annotating reads 'Review' with 'In Progress' as its secondary text, so
//                         the picker names the state the tiles show
//   stageOption(status)   one of those entries
//   stageLabel(status)    an entry on one line, for toasts and accessible names: 'Review (In Progress)'
//
// A picker renders `label` as the entry's text and `detail` (when not null) as quieter secondary
// text after it; its accessible name is then "Review In Progress". The stage colours are the
// CSS tokens --color-status-<status> (DESIGN.md).
import { IMAGE_STATUSES, type ImageStatus } from '../../contract/images';

export { IMAGE_STATUSES, nextStatus, type ImageStatus } from '../../contract/images';

/** How each status reads wherever an image's status is shown (tiles, filters, counts). */
export const STATUS_LABELS: Readonly<Record<ImageStatus, string>> = Object.freeze({
  new: 'Not Started',
  annotating: 'In Progress',
  complete: 'Complete',
});

/** One entry of a stage picker. */
export interface StageOption {
  status: ImageStatus;
  /** The entry's text: 'Not Started', 'Review', 'Complete'. */
  label: string;
  /** Secondary text shown after the label, or null: the status as the tiles name it when that differs. */
  detail: string | null;
}

const PICKER_LABELS: Readonly<Record<ImageStatus, string>> = { new: 'Not Started', annotating: 'Review', complete: 'Complete' };

/** The stage picker's entries in stage order (new, annotating, complete). */
export const STAGE_OPTIONS: readonly StageOption[] = Object.freeze(
  IMAGE_STATUSES.map((status) => {
    const label = PICKER_LABELS[status];
    return Object.freeze({ status, label, detail: label === STATUS_LABELS[status] ? null : STATUS_LABELS[status] });
  }),
);

/** The status as tiles and filters show it. */
export function statusLabel(status: ImageStatus): string {
  return STATUS_LABELS[status];
}

/** The stage picker's entry for `status`. */
export function stageOption(status: ImageStatus): StageOption {
  return STAGE_OPTIONS.find((o) => o.status === status)!;
}

/** A picker entry on one line ('Review (In Progress)', 'Complete'): toasts, tooltips, accessible names. */
export function stageLabel(status: ImageStatus): string {
  const o = stageOption(status);
  return o.detail ? `${o.label} (${o.detail})` : o.label;
}
