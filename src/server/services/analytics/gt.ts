// The ground-truth scores of the analytics (issue 36 §2): the attempts submitted in the range,
// per image, per member and per class. Each attempt's score was worked out once, at its submit
// (services/quality); this adds them up. The rules: docs/analytics.md "Ground truth and scores".
import { sql } from 'drizzle-orm';
import type { GroundTruthAttempt, GroundTruthReport, GroundTruthScore } from '../../../contract/analytics';
import type { Person } from '../../../contract/workflow';
import { rowsOf, type Conn } from '../annotations/store';
import { dayKey, type AnalyticsRange } from './range';

interface AttemptRow {
  image_id: string;
  filename: string;
  user_id: string;
  submitted_at: string | Date;
  score: { f1: number; mean_iou: number | null; mean_oks: number | null; attributes: number | null; by_class: Record<string, { reference: number; scored: number; f1: number; mean_iou: number | null }> };
}

const round4 = (x: number) => Math.round(x * 1e4) / 1e4;
const meanOf = (xs: readonly number[]) => (xs.length ? round4(xs.reduce((s, x) => s + x, 0) / xs.length) : null);

/** Scores added up: the mean F1, the mean of the mean IoUs measured, how many. */
function summary(items: readonly { f1: number; mean_iou: number | null }[]): GroundTruthScore {
  return { f1: meanOf(items.map((i) => i.f1)) ?? 0, mean_iou: meanOf(items.flatMap((i) => (i.mean_iou === null ? [] : [i.mean_iou]))), images: items.length };
}

function perClass(rows: readonly AttemptRow[]): Record<string, GroundTruthScore> {
  const by = new Map<string, { f1: number; mean_iou: number | null }[]>();
  for (const r of rows) for (const [name, c] of Object.entries(r.score.by_class)) by.set(name, [...(by.get(name) ?? []), c]);
  return Object.fromEntries([...by.keys()].sort().map((name) => [name, summary(by.get(name)!)]));
}

export interface GroundTruthScores {
  report: GroundTruthReport;
  byMember: Map<string, { gt: GroundTruthScore; gt_by_class: Record<string, GroundTruthScore> }>;
}

/** The submitted attempts of the range by the members in `users` (null: everyone). */
export async function groundTruthScores(
  db: Conn,
  projectId: string,
  range: AnalyticsRange,
  passThreshold: number,
  users: readonly string[] | null,
  personOf: (id: string) => Person,
): Promise<GroundTruthScores> {
  const rows = await rowsOf<AttemptRow>(
    db,
    sql`SELECT a.image_id, i.filename, a.user_id, a.submitted_at, a.score
        FROM gt_attempts a JOIN images i ON i.id = a.image_id
        WHERE a.project_id = ${projectId} AND a.submitted_at IS NOT NULL AND a.score IS NOT NULL
          AND a.submitted_at >= ${dayKey(range.fromDay)}::date AND a.submitted_at < ${dayKey(range.toDay)}::date + 1
        ORDER BY a.submitted_at DESC, a.image_id, a.user_id`,
  );
  const mine = users ? rows.filter((r) => users.includes(r.user_id)) : rows;
  const attempts: GroundTruthAttempt[] = mine.map((r) => ({
    image_id: r.image_id,
    filename: r.filename,
    user: personOf(r.user_id),
    submitted_at: new Date(r.submitted_at).toISOString(),
    f1: round4(r.score.f1),
    mean_iou: r.score.mean_iou === null ? null : round4(r.score.mean_iou),
    mean_oks: r.score.mean_oks === null ? null : round4(r.score.mean_oks),
    attributes: r.score.attributes === null ? null : round4(r.score.attributes),
    passed: r.score.f1 >= passThreshold,
  }));
  const byMember: GroundTruthScores['byMember'] = new Map();
  for (const id of new Set(mine.map((r) => r.user_id))) {
    const own = mine.filter((r) => r.user_id === id);
    byMember.set(id, { gt: summary(own.map((r) => r.score)), gt_by_class: perClass(own) });
  }
  return { report: { pass_threshold: passThreshold, attempts, by_class: perClass(mine) }, byMember };
}
