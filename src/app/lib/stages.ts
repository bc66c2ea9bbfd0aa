// The names of the image stages, in one place (issue 29: one pipeline, named the same everywhere):
//
//   new 'Not started' -> annotating 'In progress' -> review 'In review' -> complete 'Done'
//
// Everything that shows a status or offers to set one takes its words from here, so the tiles, the
// filters, the Data tab's Stage menu and the editor's stage picker name the same state the same way.
//
//   statusLabel(status)   the status as a tile, a filter, a count or a picker shows it: 'In review'
//   STAGE_OPTIONS         the stage picker's entries, in stage order: { status, label, detail }
//   stageOption(status)   one of those entries
//   stageLabel(status)    an entry on one line, for toasts and accessible names: 'In review'
//
// `detail` is kept for pickers that show secondary text; every stage now has one name, so it is
// null. The stage colours are the CSS tokens --color-status-<status> (DESIGN.md).
import { IMAGE_STATUSES, type ImageStatus } from '../../contract/images';

export { IMAGE_STATUSES, nextStatus, type ImageStatus } from '../../contract/images';

/** How each status reads wherever an image's status is shown (tiles, filters, counts, pickers). */
export const STATUS_LABELS: Readonly<Record<ImageStatus, string>> = Object.freeze({
  new: 'Not started',
  annotating: 'In progress',
  review: 'In review',
  complete: 'Done',
});

/** One entry of a stage picker. */
export interface StageOption {
  status: ImageStatus;
  /** The entry's text, the same as the tiles show: 'Not started', 'In progress', 'In review', 'Done'. */
  label: string;
  /** Secondary text shown after the label, or null (every stage has one name: always null). */
  detail: string | null;
}

/** The stage picker's entries in stage order (new, annotating, review, complete). */
export const STAGE_OPTIONS: readonly StageOption[] = Object.freeze(IMAGE_STATUSES.map((status) => Object.freeze({ status, label: STATUS_LABELS[status], detail: null })));

/** The status as tiles, filters and pickers show it. */
export function statusLabel(status: ImageStatus): string {
  return STATUS_LABELS[status];
}

/** The stage picker's entry for `status`. */
export function stageOption(status: ImageStatus): StageOption {
  return STAGE_OPTIONS.find((o) => o.status === status)!;
}

/** A picker entry on one line ('In review', 'Done'): toasts, tooltips, accessible names. */
export function stageLabel(status: ImageStatus): string {
  const o = stageOption(status);
  return o.detail ? `${o.label} (${o.detail})` : o.label;
}
