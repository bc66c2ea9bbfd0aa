// An import's report: the counts, the classes it added, and every skipped file and warning with
// its reason (the server lists up to 1,000 of each and counts the rest).
import { useQuery } from '@tanstack/react-query';
import { CircleAlert, CircleCheck, CircleStop, LoaderCircle } from 'lucide-react';
import type { ImportJob } from '../../../../contract/imports';
import { api } from '../../../api/client';
import { formatRelativeDate } from '../../../lib/format';
import { importEnded } from './importFlow';
import styles from './ImportDialog.module.css';

const FORMAT_NAMES: Record<string, string> = { coco: 'COCO', yolo: 'YOLO', voc: 'Pascal VOC', cvat: 'CVAT', vellum: 'Vellum', auto: 'unknown' };

export function ImportReportView({ job }: { job: ImportJob }) {
  const r = job.report;
  const failed = job.status === 'failed';
  const cancelled = job.status === 'cancelled';
  const stats: [string, number][] = [
    ['Images added', r.images_created],
    ['Images matched', r.images_matched],
    ['Annotations', r.annotations_created],
    ['Skipped', r.skipped.length + r.skipped_more],
  ];
  return (
    <div className={styles.report} data-testid="import-report">
      <p className={styles.outcome} data-tone={failed ? 'danger' : cancelled ? 'warning' : 'success'} role={failed ? 'alert' : 'status'}>
        {failed ? <CircleAlert aria-hidden="true" /> : cancelled ? <CircleStop aria-hidden="true" /> : <CircleCheck aria-hidden="true" />}
        <span>
          {failed
            ? `The import stopped: ${job.error ?? 'an unknown error'}`
            : cancelled
              ? `The import of ${job.filename} was cancelled; what it added before it stopped is kept`
              : `Imported ${job.filename} (${FORMAT_NAMES[job.format] ?? job.format})`}
        </span>
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

const STATUS_TEXT: Record<ImportJob['status'], string> = { uploading: 'Not started', queued: 'Waiting', running: 'Running', done: 'Done', failed: 'Failed', cancelled: 'Cancelled' };

/** The project's latest imports (from any session or device); choosing one shows its report. */
export function RecentImports({ projectId, onOpen }: { projectId: string; onOpen(job: ImportJob): void }) {
  const list = useQuery({ queryKey: ['imports', projectId], queryFn: () => api.listImports(projectId), refetchInterval: (q) => (q.state.data?.imports.some((i) => i.status === 'queued' || i.status === 'running') ? 3000 : false) });
  const shown = (list.data?.imports ?? []).filter((i) => i.status !== 'uploading').slice(0, 5);
  if (!shown.length) return null;
  return (
    <section className={styles.listSection} aria-label="Recent imports">
      <h3 className={styles.listTitle}>Recent imports</h3>
      <ul className={styles.recent}>
        {shown.map((job) => (
          <li key={job.import_id}>
            <button type="button" className={styles.recentRow} disabled={!importEnded(job)} onClick={() => onOpen(job)}>
              <span className={styles.itemFile}>{job.filename}</span>
              <span className={styles.recentMeta} data-status={job.status}>
                {job.status === 'running' ? <LoaderCircle aria-hidden="true" className={styles.spin} /> : null}
                {job.status === 'running' && job.cancel_requested ? 'Cancelling' : job.status === 'running' && job.progress.total ? `${job.progress.done.toLocaleString()} of ${job.progress.total.toLocaleString()} images` : STATUS_TEXT[job.status]}
                {job.status === 'done' || job.status === 'cancelled' ? `, ${job.report.images_created + job.report.images_matched} images, ${job.report.annotations_created.toLocaleString()} annotations` : ''}
                {' · '}
                {formatRelativeDate(job.created_at)}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
