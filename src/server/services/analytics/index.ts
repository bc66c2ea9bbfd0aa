// Project analytics (issue 36 §1): report.ts answers GET /projects/{id}/analytics from the rollups
// of 0020_analytics.sql; range.ts checks the range and makes the buckets.
export { projectAnalytics } from './report';
