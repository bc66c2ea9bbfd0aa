// The Analytics tab's CSV download: one row per member and a totals row. Cells that a spreadsheet
// would read as a formula (starting with = + - @, or a tab or carriage return) get a leading
// apostrophe, so a member named "=HYPERLINK(...)" stays text (CSV injection); then RFC 4180 quoting.
import type { ActivityCounts, AnalyticsResponse } from '../../../../contract/analytics';

/** The count columns, in the table's order, with their headers. */
export const COUNT_COLUMNS: readonly { key: keyof ActivityCounts; label: string }[] = [
  { key: 'shapes_created', label: 'Shapes created' },
  { key: 'shapes_edited', label: 'Shapes edited' },
  { key: 'shapes_deleted', label: 'Shapes deleted' },
  { key: 'images_submitted', label: 'Images submitted' },
  { key: 'images_accepted', label: 'Images accepted' },
  { key: 'images_rejected', label: 'Images rejected' },
  { key: 'active_minutes', label: 'Active minutes' },
  { key: 'issues_opened', label: 'Issues opened' },
  { key: 'issues_resolved', label: 'Issues resolved' },
];

/** One cell: formula-looking text made inert, then quoted when it holds a comma, a quote or a line break. */
export function csvCell(value: string | number | null): string {
  let text = value === null ? '' : String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Accepted out of reviewed (accepted + rejected), as a share 0..1; null when nothing was reviewed. */
export function acceptanceRate(c: Pick<ActivityCounts, 'images_accepted' | 'images_rejected'>): number | null {
  const reviewed = c.images_accepted + c.images_rejected;
  return reviewed === 0 ? null : c.images_accepted / reviewed;
}

export function analyticsCsv(data: AnalyticsResponse): string {
  const header = ['Member', ...COUNT_COLUMNS.map((c) => c.label), 'Acceptance rate'];
  const rate = (r: number | null) => (r === null ? '' : r.toFixed(3));
  const rows = data.members.map((m) => [m.user.name, ...COUNT_COLUMNS.map((c) => m[c.key]), rate(acceptanceRate(m))]);
  rows.push(['Total', ...COUNT_COLUMNS.map((c) => data.totals[c.key]), rate(acceptanceRate(data.totals))]);
  return [header, ...rows].map((row) => row.map(csvCell).join(',')).join('\r\n') + '\r\n';
}
