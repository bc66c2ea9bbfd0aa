// The range and buckets of an analytics request (issue 36): UTC days, both ends counted, at most
// MAX_ANALYTICS_DAYS; a week starts on Monday. Pure: no database.
import { ANALYTICS_BUCKETS, MAX_ANALYTICS_DAYS, type AnalyticsBucket } from '../../../contract/analytics';
import { errors } from '../../errors';

const DAY_MS = 86_400_000;
/** The default range when `from` is left out: this many days up to `to`, both counted. */
export const DEFAULT_RANGE_DAYS = 30;

export interface AnalyticsRange {
  /** UTC midnights (ms) of the first and last day. */
  fromDay: number;
  toDay: number;
  bucket: AnalyticsBucket;
}

/** YYYY-MM-DD of a UTC midnight. */
export const dayKey = (dayMs: number): string => new Date(dayMs).toISOString().slice(0, 10);

const utcDay = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;

/** A date (YYYY-MM-DD) or an ISO date-time with its zone; anything else is refused. */
function parseInstant(value: string, name: string): number {
  const ok = /^\d{4}-\d{2}-\d{2}$/.test(value) || /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(value);
  const ms = ok ? Date.parse(value) : NaN;
  if (!Number.isFinite(ms)) throw errors.badRequest(`${name} must be an ISO 8601 date (YYYY-MM-DD) or date-time with a zone`, 'invalid_date_range');
  return ms;
}

/** Checks bucket, from and to; `now` is the clock of the default range (the last 30 days). */
export function analyticsRange(query: { from?: string; to?: string; bucket?: string }, now: number): AnalyticsRange {
  const bucket = (query.bucket ?? 'day') as AnalyticsBucket;
  if (!ANALYTICS_BUCKETS.includes(bucket)) throw errors.badRequest(`bucket must be one of ${ANALYTICS_BUCKETS.join(', ')}`, 'invalid_bucket');
  const toDay = utcDay(query.to ? parseInstant(query.to, 'to') : now);
  const fromDay = query.from ? utcDay(parseInstant(query.from, 'from')) : toDay - (DEFAULT_RANGE_DAYS - 1) * DAY_MS;
  if (fromDay > toDay) throw errors.badRequest('from must not be after to', 'invalid_date_range');
  const days = (toDay - fromDay) / DAY_MS + 1;
  if (days > MAX_ANALYTICS_DAYS) throw errors.badRequest(`The range is ${days} days; at most ${MAX_ANALYTICS_DAYS} are answered`, 'invalid_date_range');
  return { fromDay, toDay, bucket };
}

/** Each bucket's first day and the last day its stage counts are read at (the range's end at most). */
export function bucketsOf(range: AnalyticsRange): { start: number; last: number }[] {
  const out: { start: number; last: number }[] = [];
  if (range.bucket === 'day') {
    for (let d = range.fromDay; d <= range.toDay; d += DAY_MS) out.push({ start: d, last: d });
    return out;
  }
  // 1970-01-01 was a Thursday: (weekday + 6) % 7 days back reaches Monday.
  const weekday = new Date(range.fromDay).getUTCDay();
  for (let w = range.fromDay - ((weekday + 6) % 7) * DAY_MS; w <= range.toDay; w += 7 * DAY_MS) {
    out.push({ start: w, last: Math.min(w + 6 * DAY_MS, range.toDay) });
  }
  return out;
}

/** Minutes of active time, to one decimal, from milliseconds. */
export const activeMinutes = (ms: number): number => Math.round(ms / 6000) / 10;
