// GET /projects/{id}/analytics (issue 36 §1): adds up the rollups that triggers keep in the
// transaction of every write (0020_analytics.sql), never the change log itself: the member-days of
// the range and the stage deltas after its first day, read side by side.
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import type { ActivityCounts, AnalyticsQuery, AnalyticsResponse, MemberActivity, ShapeCounts, StageCounts } from '../../../contract/analytics';
import { can, projectInOrg, roleIn } from '../access';
import { rowsOf, type Conn } from '../annotations/store';
import { peopleByIds, personOf } from '../workflow/events';
import { groundTruthScores } from './gt';
import { activeMinutes, analyticsRange, bucketsOf, dayKey, type AnalyticsRange } from './range';

const STAGES = ['new', 'annotating', 'review', 'complete'] as const;
type Num = number | string;

interface MemberDayRow {
  user_id: string;
  class_name: string;
  shapes_created: Num;
  shapes_edited: Num;
  shapes_deleted: Num;
  images_submitted: Num;
  images_accepted: Num;
  images_rejected: Num;
  issues_opened: Num;
  issues_resolved: Num;
  active_ms: Num;
}

const zeroShapes = (): ShapeCounts => ({ shapes_created: 0, shapes_edited: 0, shapes_deleted: 0 });
const zeroCounts = (): ActivityCounts => ({ ...zeroShapes(), images_submitted: 0, images_accepted: 0, images_rejected: 0, active_minutes: 0, issues_opened: 0, issues_resolved: 0 });
const COUNT_KEYS = ['images_submitted', 'images_accepted', 'images_rejected', 'issues_opened', 'issues_resolved'] as const;
const SHAPE_KEYS = ['shapes_created', 'shapes_edited', 'shapes_deleted'] as const;

/** Per member: the counts, milliseconds of active time and the per-class shape counts. */
function addUp(rows: MemberDayRow[]) {
  const byUser = new Map<string, { counts: ActivityCounts; activeMs: number; byClass: Record<string, ShapeCounts> }>();
  for (const r of rows) {
    let m = byUser.get(r.user_id);
    if (!m) byUser.set(r.user_id, (m = { counts: zeroCounts(), activeMs: 0, byClass: {} }));
    for (const k of COUNT_KEYS) m.counts[k] += Number(r[k]);
    m.activeMs += Number(r.active_ms);
    const shapes = SHAPE_KEYS.map((k) => Number(r[k]));
    if (shapes.some((n) => n !== 0)) {
      const c = (m.byClass[r.class_name] ??= zeroShapes());
      SHAPE_KEYS.forEach((k, i) => {
        c[k] += shapes[i]!;
        m.counts[k] += shapes[i]!;
      });
    }
  }
  return byUser;
}

async function memberRows(db: Conn, projectId: string, range: AnalyticsRange): Promise<MemberDayRow[]> {
  return rowsOf<MemberDayRow>(
    db,
    sql`SELECT user_id, class_name, sum(shapes_created) AS shapes_created, sum(shapes_edited) AS shapes_edited, sum(shapes_deleted) AS shapes_deleted,
               sum(images_submitted) AS images_submitted, sum(images_accepted) AS images_accepted, sum(images_rejected) AS images_rejected,
               sum(issues_opened) AS issues_opened, sum(issues_resolved) AS issues_resolved, sum(active_ms) AS active_ms
        FROM analytics_member_days
        WHERE project_id = ${projectId} AND day BETWEEN ${dayKey(range.fromDay)}::date AND ${dayKey(range.toDay)}::date
        GROUP BY user_id, class_name`,
  );
}

/** Images not archived per stage now, and the stage moves of the days after the range's first. */
async function stageRows(db: Conn, projectId: string, range: AnalyticsRange) {
  const [current, moves] = await Promise.all([
    rowsOf<{ status: string; n: Num }>(db, sql`SELECT status, sum(image_count) AS n FROM image_folder_stats WHERE project_id = ${projectId} AND NOT is_archived GROUP BY status`),
    rowsOf<{ day: string; status: string; delta: Num }>(
      db,
      sql`SELECT to_char(day, 'YYYY-MM-DD') AS day, status, delta FROM analytics_stage_days WHERE project_id = ${projectId} AND day > ${dayKey(range.fromDay)}::date ORDER BY day DESC`,
    ),
  ]);
  return { current, moves };
}

/** The stage counts at the end of each bucket: today's counts minus the later days' moves. */
function stageBuckets(range: AnalyticsRange, { current, moves }: Awaited<ReturnType<typeof stageRows>>): AnalyticsResponse['buckets'] {
  const counts: Record<string, number> = Object.fromEntries(STAGES.map((s) => [s, 0]));
  for (const r of current) counts[r.status] = Number(r.n);
  const buckets = bucketsOf(range);
  const out: AnalyticsResponse['buckets'] = new Array(buckets.length);
  // Newest bucket first, undoing the moves of the days after each bucket's last day.
  let next = 0;
  for (let i = buckets.length - 1; i >= 0; i--) {
    const last = dayKey(buckets[i]!.last);
    while (next < moves.length && moves[next]!.day > last) {
      const m = moves[next++]!;
      counts[m.status] = (counts[m.status] ?? 0) - Number(m.delta);
    }
    out[i] = { start: dayKey(buckets[i]!.start), stage_counts: Object.fromEntries(STAGES.map((s) => [s, counts[s] ?? 0])) as StageCounts };
  }
  return out;
}

/** The members shown to managers: who may annotate or review now, and anyone with counts in the range. */
async function workingMembers(db: Conn, organizationId: string): Promise<string[]> {
  const rows = await rowsOf<{ user_id: string }>(db, sql`SELECT user_id FROM organization_members WHERE organization_id = ${organizationId} AND role <> 'viewer'`);
  return rows.map((r) => r.user_id);
}

/**
 * Owners, admins and reviewers (images.review) see every member; annotators only themselves;
 * viewers, who do no annotation work (annotations.write), get 403; another organization's project 404.
 */
export async function projectAnalytics(ctx: AppContext, userId: string, projectId: string, query: AnalyticsQuery): Promise<AnalyticsResponse> {
  const range = analyticsRange(query, (ctx.now?.() ?? new Date()).getTime());
  const project = await projectInOrg(ctx, userId, projectId, 'annotations.write', query.org_id);
  // Independent reads, side by side (each on its own pooled connection on PostgreSQL); an
  // annotator's own rows are picked from the project's (a few per member and class).
  const [role, allRows, stages, working] = await Promise.all([
    roleIn(ctx.db, userId, project.organizationId),
    memberRows(ctx.db, projectId, range),
    stageRows(ctx.db, projectId, range),
    workingMembers(ctx.db, project.organizationId),
  ]);
  const everyone = !!role && can(role, 'images.review');
  const rows = everyone ? allRows : allRows.filter((r) => r.user_id === userId);
  const team = everyone ? working : [userId];
  const buckets = stageBuckets(range, stages);
  const byUser = addUp(rows);
  const gtUsers = await rowsOf<{ user_id: string }>(ctx.db, sql`SELECT DISTINCT user_id FROM gt_attempts WHERE project_id = ${projectId} AND submitted_at IS NOT NULL`);
  const ids = [...new Set([...team, ...byUser.keys(), ...(everyone ? gtUsers.map((r) => r.user_id) : [])])];
  const people = await peopleByIds(ctx.db, ids);
  const gt = await groundTruthScores(ctx.db, projectId, range, project.gtPassThreshold, everyone ? null : [userId], (id) => personOf(people, id));
  const totals = { ...zeroCounts(), by_class: {} as Record<string, ShapeCounts> };
  let totalMs = 0;
  const members: MemberActivity[] = ids.map((id) => {
    const m = byUser.get(id) ?? { counts: zeroCounts(), activeMs: 0, byClass: {} };
    for (const k of [...COUNT_KEYS, ...SHAPE_KEYS]) totals[k] += m.counts[k];
    totalMs += m.activeMs;
    for (const [name, c] of Object.entries(m.byClass)) {
      const t = (totals.by_class[name] ??= zeroShapes());
      for (const k of SHAPE_KEYS) t[k] += c[k];
    }
    return { user: personOf(people, id), ...m.counts, active_minutes: activeMinutes(m.activeMs), by_class: m.byClass, gt: gt.byMember.get(id)?.gt ?? null, gt_by_class: gt.byMember.get(id)?.gt_by_class ?? {} };
  });
  totals.active_minutes = activeMinutes(totalMs);
  members.sort((a, b) => a.user.name.localeCompare(b.user.name) || a.user.id.localeCompare(b.user.id));
  return { from: dayKey(range.fromDay), to: dayKey(range.toDay), bucket: range.bucket, members, totals, buckets, gt: gt.report };
}
