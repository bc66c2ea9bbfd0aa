// Ground-truth scores in the Analytics tab (issue 36 §2): per member, per class and per attempt,
// the F1 and mean IoU, with those under the project's pass threshold marked (in words, not by
// colour alone). The numbers come from GET /projects/{id}/analytics (`gt`, `members[].gt`).
import type { AnalyticsResponse, GroundTruthScore } from '../../../../contract/analytics';
import styles from './AnalyticsTab.module.css';

const pct = (x: number | null) => (x === null ? '–' : `${(x * 100).toFixed(1)}%`);

function Verdict({ f1, threshold }: { f1: number; threshold: number }) {
  return f1 >= threshold ? <span className={styles.pass}>Pass</span> : <span className={styles.below}>Below threshold</span>;
}

function ScoreTable({ label, first, rows, threshold }: { label: string; first: string; rows: { key: string; name: string; score: GroundTruthScore }[]; threshold: number }) {
  return (
    <div className={styles.tableWrap}>
      <table className={styles.table} aria-label={label}>
        <thead>
          <tr>
            <th scope="col">{first}</th>
            <th scope="col">Images scored</th>
            <th scope="col">F1</th>
            <th scope="col">Mean IoU</th>
            <th scope="col">Result</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.key} data-below={r.score.f1 < threshold || undefined}>
              <th scope="row">{r.name}</th>
              <td className="tabular">{r.score.images}</td>
              <td className="tabular">{pct(r.score.f1)}</td>
              <td className="tabular">{pct(r.score.mean_iou)}</td>
              <td>
                <Verdict f1={r.score.f1} threshold={threshold} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** True when the range holds scored ground-truth attempts (the section shows only then). */
export const hasGroundTruth = (data: AnalyticsResponse) => data.gt.attempts.length > 0;

export function GroundTruthScores({ data }: { data: AnalyticsResponse }) {
  const threshold = data.gt.pass_threshold;
  const members = data.members.flatMap((m) => (m.gt ? [{ key: m.user.id, name: m.user.name, score: m.gt }] : []));
  const classes = Object.entries(data.gt.by_class).map(([name, score]) => ({ key: name, name, score }));
  return (
    <section className={styles.tables} aria-labelledby="gt-scores-title">
      <div>
        <h2 id="gt-scores-title" className={styles.cardTitle}>Ground-truth scores</h2>
        <p className={styles.muted}>
          Attempts at ground-truth images, scored against the reviewed annotations. Pass at F1 of {pct(threshold)} or more (the project&apos;s settings).
        </p>
      </div>
      <ScoreTable label="Ground-truth score per member" first="Member" rows={members} threshold={threshold} />
      <ScoreTable label="Ground-truth score per class" first="Class" rows={classes} threshold={threshold} />
      <div className={styles.tableWrap}>
        <table className={styles.table} aria-label="Ground-truth score per image">
          <thead>
            <tr>
              <th scope="col">Image</th>
              <th scope="col">Member</th>
              <th scope="col">Submitted</th>
              <th scope="col">F1</th>
              <th scope="col">Mean IoU</th>
              <th scope="col">Keypoints (OKS)</th>
              <th scope="col">Attributes</th>
              <th scope="col">Result</th>
            </tr>
          </thead>
          <tbody>
            {data.gt.attempts.map((a) => (
              <tr key={`${a.image_id}:${a.user.id}`} data-below={!a.passed || undefined}>
                <th scope="row">{a.filename}</th>
                <td>{a.user.name}</td>
                <td className="tabular">{new Date(a.submitted_at).toLocaleString()}</td>
                <td className="tabular">{pct(a.f1)}</td>
                <td className="tabular">{pct(a.mean_iou)}</td>
                <td className="tabular">{pct(a.mean_oks)}</td>
                <td className="tabular">{pct(a.attributes)}</td>
                <td>
                  <Verdict f1={a.f1} threshold={threshold} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
