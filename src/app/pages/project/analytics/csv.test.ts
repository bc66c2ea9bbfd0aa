import { describe, expect, it } from 'vitest';
import { acceptanceRate, analyticsCsv, csvCell } from './csv';
import type { AnalyticsResponse } from '../../../../contract/analytics';

describe('CSV cells', () => {
  it('makes formula-looking text inert with an apostrophe', () => {
    expect(csvCell('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`);
    expect(csvCell('+1')).toBe("'+1");
    expect(csvCell('-2+3')).toBe("'-2+3");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('\tcmd')).toBe("'\tcmd");
  });
  it('quotes commas, quotes and line breaks, and leaves plain text and numbers alone', () => {
    expect(csvCell('Ann, Otator')).toBe('"Ann, Otator"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('Ann Otator')).toBe('Ann Otator');
    expect(csvCell(-3)).toBe('-3');
    expect(csvCell(2.5)).toBe('2.5');
    expect(csvCell(null)).toBe('');
  });
});

describe('the analytics CSV', () => {
  const counts = { shapes_created: 5, shapes_edited: 3, shapes_deleted: 1, images_submitted: 3, images_accepted: 2, images_rejected: 1, active_minutes: 8, issues_opened: 1, issues_resolved: 0 };
  const data: AnalyticsResponse = {
    from: '2026-11-01',
    to: '2026-11-02',
    bucket: 'day',
    members: [
      { user: { id: 'u1', name: '=cmd|calc' }, ...counts, by_class: {}, gt: null, gt_by_class: {} },
      { user: { id: 'u2', name: 'Bea' }, ...counts, images_accepted: 0, images_rejected: 0, by_class: {}, gt: null, gt_by_class: {} },
    ],
    totals: { ...counts, images_accepted: 2, images_rejected: 1, by_class: {} },
    buckets: [],
    gt: { pass_threshold: 0.8, attempts: [], by_class: {} },
  };
  it('has a header, a row per member and a totals row, with the acceptance rate', () => {
    expect(analyticsCsv(data).split('\r\n')).toEqual([
      'Member,Shapes created,Shapes edited,Shapes deleted,Images submitted,Images accepted,Images rejected,Active minutes,Issues opened,Issues resolved,Acceptance rate',
      "'=cmd|calc,5,3,1,3,2,1,8,1,0,0.667",
      'Bea,5,3,1,3,0,0,8,1,0,',
      'Total,5,3,1,3,2,1,8,1,0,0.667',
      '',
    ]);
  });
  it('the acceptance rate is accepted over reviewed, none when nothing was reviewed', () => {
    expect(acceptanceRate({ images_accepted: 3, images_rejected: 1 })).toBe(0.75);
    expect(acceptanceRate({ images_accepted: 0, images_rejected: 0 })).toBeNull();
  });
});
