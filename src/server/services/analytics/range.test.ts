import { describe, expect, it } from 'vitest';
import { activeMinutes, analyticsRange, bucketsOf, dayKey } from './range';

const at = (s: string) => Date.parse(s);
const code = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return (err as { code?: string }).code;
  }
  return 'none';
};

describe('the analytics range', () => {
  it('reads dates and date-times as their UTC day, both ends counted; defaults to the last 30 days by day', () => {
    const r = analyticsRange({ from: '2026-11-02T23:30:00-02:00', to: '2026-11-04' }, at('2026-11-29T12:00:00Z'));
    expect([dayKey(r.fromDay), dayKey(r.toDay), r.bucket]).toEqual(['2026-11-03', '2026-11-04', 'day']);
    const d = analyticsRange({}, at('2026-11-29T12:00:00Z'));
    expect([dayKey(d.fromDay), dayKey(d.toDay)]).toEqual(['2026-10-31', '2026-11-29']);
  });
  it('refuses another bucket, a bad date, from after to and more than 367 days', () => {
    const now = at('2026-11-29T12:00:00Z');
    expect(code(() => analyticsRange({ bucket: 'month' }, now))).toBe('invalid_bucket');
    expect(code(() => analyticsRange({ from: '11/02/2026' }, now))).toBe('invalid_date_range');
    expect(code(() => analyticsRange({ from: '2026-11-02T10:00' }, now))).toBe('invalid_date_range');
    expect(code(() => analyticsRange({ from: '2026-11-05', to: '2026-11-04' }, now))).toBe('invalid_date_range');
    expect(code(() => analyticsRange({ from: '2024-01-01', to: '2025-01-02' }, now))).toBe('invalid_date_range');
    expect(code(() => analyticsRange({ from: '2024-01-01', to: '2025-01-01' }, now))).toBe('none');
  });
});

describe('buckets', () => {
  it('days: one per day; weeks: from the Monday on or before from, the last read at the range end', () => {
    const days = bucketsOf(analyticsRange({ from: '2026-11-27', to: '2026-11-29' }, 0));
    expect(days.map((b) => [dayKey(b.start), dayKey(b.last)])).toEqual([['2026-11-27', '2026-11-27'], ['2026-11-28', '2026-11-28'], ['2026-11-29', '2026-11-29']]);
    // 2026-11-18 is a Wednesday, 2026-11-29 a Sunday, 2026-12-02 a Wednesday.
    const weeks = bucketsOf(analyticsRange({ from: '2026-11-18', to: '2026-12-02', bucket: 'week' }, 0));
    expect(weeks.map((b) => [dayKey(b.start), dayKey(b.last)])).toEqual([['2026-11-16', '2026-11-22'], ['2026-11-23', '2026-11-29'], ['2026-11-30', '2026-12-02']]);
  });
});

describe('active minutes', () => {
  it('rounds milliseconds to a tenth of a minute', () => {
    expect(activeMinutes(0)).toBe(0);
    expect(activeMinutes(8 * 60_000)).toBe(8);
    expect(activeMinutes(90_000)).toBe(1.5);
    expect(activeMinutes(62_999)).toBe(1);
    expect(activeMinutes(63_000)).toBe(1.1);
  });
});
