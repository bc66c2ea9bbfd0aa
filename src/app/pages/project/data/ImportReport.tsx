// An import's report: the counts, the classes it added, and every skipped file and warning with
// its reason (the server lists up to 1,000 of each and counts the rest).
import { CircleAlert, CircleCheck } from 'lucide-react';
import type { ImportJob } from '../../../../contract/imports';
import styles from './ImportDialog.module.css';

const FORMAT_NAMES: Record<string, string> = { coco: 'COCO', yolo: 'YOLO', voc: 'Pascal VOC', cvat: 'CVAT', vellum: 'Vellum', auto: 'unknown' };

export function ImportReportView({ job }: { job: ImportJob }) {
  const r = job.report;
  const failed = job.status === 'failed';
  const stats: [string, number][] = [
    ['Images added', r.images_created],
    ['Images matched', r.images_matched],
    ['Annotations', r.annotations_created],
    ['Skipped', r.skipped.length + r.skipped_more],
  ];
  return (
    <div className={styles.report} data-testid="import-report">
      <p className={styles.outcome} data-tone={failed ? 'danger' : 'success'} role={failed ? 'alert' : 'status'}>
        {failed ? <CircleAlert aria-hidden="true" /> : <CircleCheck aria-hidden="true" />}
        <span>{failed ? `The import stopped: ${job.error ?? 'an unknown error'}` : `Imported ${job.filename} (${FORMAT_NAMES[job.format] ?? job.format})`}</span>
      </p>
      <dl className={styles.stats}>
        {stats.map(([label, value]) => (
          <div key={label} className={styles.stat}>
            <dt>{label}</dt>
            <dd className="tabular">{value.toLocaleString()}</dd>
          </div>
        ))}
      </dl>
      {r.classes_created.length ? (
        <p className={styles.line}>
          New classes: <strong>{r.classes_created.join(', ')}</strong>
        </p>
      ) : null}
      {r.skipped.length ? (
        <section className={styles.listSection} aria-label="Skipped">
          <h3 className={styles.listTitle}>Skipped ({(r.skipped.length + r.skipped_more).toLocaleString()})</h3>
          <ul className={styles.list}>
            {r.skipped.map((s, i) => (
              <li key={i}>
                <span className={styles.itemFile}>{s.file}</span>
                <span className={styles.itemReason}>{s.reason}</span>
              </li>
            ))}
            {r.skipped_more ? <li className={styles.itemReason}>and {r.skipped_more.toLocaleString()} more</li> : null}
          </ul>
        </section>
      ) : null}
      {r.warnings.length ? (
        <section className={styles.listSection} aria-label="Warnings">
          <h3 className={styles.listTitle}>Warnings ({(r.warnings.length + r.warnings_more).toLocaleString()})</h3>
          <ul className={styles.list}>
            {r.warnings.map((w, i) => (
              <li key={i} className={styles.itemReason}>
                {w}
              </li>
            ))}
            {r.warnings_more ? <li className={styles.itemReason}>and {r.warnings_more.toLocaleString()} more</li> : null}
          </ul>
        </section>
      ) : null}
    </div>
  );
}
