// What the user is told when another person's saved change met their own edits of the image
// (issue 20: "when both people edit the same shape, the later edit wins, as today, and both are
// told"). The link finds the overlap (./link.ts Overlap); this names the other person from the
// image's history and words the messages.
import type { HistoryEntry } from '../../../contract/annotation-api';
import type { Overlap } from './link';

/**
 * Who saved the change: the history entry of `by` within the change's versions, else the one
 * person other than `me` who saved in them. Null when that is not known (then: 'Someone else').
 */
export function overlapAuthor(o: Overlap, entries: readonly HistoryEntry[], me: string | null): string | null {
  const within = entries.filter((e) => e.version > o.since && e.version <= o.version && e.user_id !== null && e.user_id !== me);
  const mine = o.by ? within.find((e) => e.user_id === o.by) : undefined;
  if (mine) return mine.user_name;
  const names = [...new Set(within.map((e) => e.user_name).filter((n): n is string => !!n))];
  return !o.by && names.length === 1 ? names[0]! : null;
}

/** The toasts of one overlap, worded like the 409 merge's ('Conflict merged: ...'). */
export function overlapMessages(o: Overlap, who: string | null): string[] {
  const name = who || 'Someone else';
  const out: string[] = [];
  if (o.overwritten.length) out.push(`${name} changed ${o.overwritten.length} annotation(s) you edited: the later edit, theirs, was kept.`);
  if (o.kept.length) out.push(`${name} also changed ${o.kept.length} annotation(s) you are editing: the later edit, yours, is kept.`);
  return out;
}

/**
 * The toast when another person's save met this user's edit of `count` shapes and their merge kept
 * this user's, the later edit (live `overlap`): the counterpart of their 'Conflict merged' toast.
 */
export function outlastedMessage(count: number, who: string | null): string {
  return `${who || 'Someone else'} also edited ${count} annotation(s) you edited: the later edit, yours, was kept.`;
}
