// The Analytics tab's data: GET /projects/{id}/analytics for the chosen range and bucket, and the
// range the tab opens with (the last 30 days, by day).
import { useQuery } from '@tanstack/react-query';
import { AnalyticsResponse, type AnalyticsBucket } from '../../../../contract/analytics';
import { request } from '../../../api/client';

export interface AnalyticsRangeChoice {
  from: string;
  to: string;
  bucket: AnalyticsBucket;
}

const DAY = 86_400_000;
const ymd = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The last `days` UTC days up to today. */
export function lastDays(days: number, now = Date.now()): { from: string; to: string } {
  return { from: ymd(now - (days - 1) * DAY), to: ymd(now) };
}

export function useAnalytics(projectId: string, orgId: string, range: AnalyticsRangeChoice) {
  return useQuery({
    queryKey: ['analytics', projectId, range.from, range.to, range.bucket],
    queryFn: ({ signal }) => {
      const q = new URLSearchParams({ org_id: orgId, from: range.from, to: range.to, bucket: range.bucket });
      return request('GET', `/projects/${encodeURIComponent(projectId)}/analytics?${q}`, AnalyticsResponse, undefined, { signal });
    },
    placeholderData: (previous) => previous,
    retry: false,
  });
}
