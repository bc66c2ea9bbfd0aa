// The project's Analytics tab (issue 36 §1): a date range and a day / week bucket, summary
// figures, then either the charts (AnalyticsCharts, with Chart.js, loaded on first show) or a
// table of every number, and a CSV download. Owners, admins and reviewers see every member;
// an annotator sees herself (the server decides: GET /projects/{id}/analytics). Below them, the
// ground-truth scores when the range has any (GroundTruthScores, issue 36 §2).
import { Suspense, lazy, useId, useState } from 'react';
import { BarChart3, Download, RefreshCw } from 'lucide-react';
import type { AnalyticsBucket, AnalyticsResponse } from '../../../../contract/analytics';
import type { Project } from '../../../../contract/projects';
import { serverMessage } from '../../../api/client';
import { Button } from '../../../components/Button';
import { EmptyState } from '../../../components/EmptyState';
import { Spinner } from '../../../components/Spinner';
import { IMAGE_STATUSES, statusLabel } from '../../../lib/stages';
import { COUNT_COLUMNS, acceptanceRate, analyticsCsv } from './csv';
import { GroundTruthScores, hasGroundTruth } from './GroundTruthScores';
import { lastDays, useAnalytics, type AnalyticsRangeChoice } from './useAnalytics';
import styles from './AnalyticsTab.module.css';

const AnalyticsCharts = lazy(() => import('./AnalyticsCharts'));
type View = 'charts' | 'table';

const percent = (r: number | null) => (r === null ? '–' : `${Math.round(r * 100)}%`);

function download(project: Project, data: AnalyticsResponse) {
  const blob = new Blob([analyticsCsv(data)], { type: 'text/csv;charset=utf-8' });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = `${project.name.replace(/[^\w.-]+/g, '_')}-analytics-${data.from}-to-${data.to}.csv`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** A radio group drawn as a segmented control: arrow keys move the choice, as native radios do. */
function Segmented<T extends string>({ legend, value, options, onChange }: { legend: string; value: T; options: { id: T; label: string }[]; onChange(v: T): void }) {
  const name = useId();
  return (
    <fieldset className={styles.segmented}>
      <legend className={styles.label}>{legend}</legend>
      <div className={styles.segments}>
        {options.map((o) => (
          <label key={o.id} className={styles.segment} data-checked={value === o.id || undefined}>
            <input type="radio" name={name} value={o.id} checked={value === o.id} onChange={() => onChange(o.id)} />
            {o.label}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

function Summary({ data }: { data: AnalyticsResponse }) {
  const t = data.totals;
  const tiles = [
    { label: 'Images submitted', value: t.images_submitted },
    { label: 'Images accepted', value: t.images_accepted },
    { label: 'Acceptance rate', value: percent(acceptanceRate(t)) },
    { label: 'Shapes created', value: t.shapes_created },
    { label: 'Active hours', value: (t.active_minutes / 60).toFixed(1) },
  ];
  return (
    <dl className={styles.summary}>
      {tiles.map((tile) => (
        <div key={tile.label} className={styles.tile}>
          <dt>{tile.label}</dt>
          <dd className="tabular">{tile.value}</dd>
        </div>
      ))}
    </dl>
  );
}

function Tables({ data }: { data: AnalyticsResponse }) {
  return (
    <div className={styles.tables}>
      <div className={styles.tableWrap}>
        <table className={styles.table} aria-label="Activity per member">
          <thead>
            <tr>
              <th scope="col">Member</th>
              {COUNT_COLUMNS.map((c) => (
                <th key={c.key} scope="col">{c.label}</th>
              ))}
              <th scope="col">Acceptance rate</th>
            </tr>
          </thead>
          <tbody>
            {data.members.map((m) => (
              <tr key={m.user.id}>
                <th scope="row">{m.user.name}</th>
                {COUNT_COLUMNS.map((c) => (
                  <td key={c.key} className="tabular">{m[c.key]}</td>
                ))}
                <td className="tabular">{percent(acceptanceRate(m))}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">Total</th>
              {COUNT_COLUMNS.map((c) => (
                <td key={c.key} className="tabular">{data.totals[c.key]}</td>
              ))}
              <td className="tabular">{percent(acceptanceRate(data.totals))}</td>
            </tr>
          </tfoot>
        </table>
      </div>
      <div className={styles.tableWrap}>
        <table className={styles.table} aria-label={`Images per stage by ${data.bucket}`}>
          <thead>
            <tr>
              <th scope="col">{data.bucket === 'week' ? 'Week of' : 'Day'}</th>
              {IMAGE_STATUSES.map((s) => (
                <th key={s} scope="col">{statusLabel(s)}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {data.buckets.map((b) => (
              <tr key={b.start}>
                <th scope="row" className="tabular">{b.start}</th>
                {IMAGE_STATUSES.map((s) => (
                  <td key={s} className="tabular">{b.stage_counts[s]}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

const isEmpty = (d: AnalyticsResponse) =>
  !hasGroundTruth(d) &&
  COUNT_COLUMNS.every((c) => d.totals[c.key] === 0) && d.buckets.every((b) => IMAGE_STATUSES.every((s) => b.stage_counts[s] === 0));

export function AnalyticsTab({ project }: { project: Project }) {
  const [range, setRange] = useState<AnalyticsRangeChoice>(() => ({ ...lastDays(30), bucket: 'day' }));
  const [view, setView] = useState<View>('charts');
  const query = useAnalytics(project.id, project.organization_id, range);
  const fromId = useId();
  const toId = useId();
  const data = query.data;
  return (
    <div className={styles.tab}>
      <div className={styles.toolbar}>
        <div className={styles.field}>
          <label className={styles.label} htmlFor={fromId}>From</label>
          <input id={fromId} className={styles.date} type="date" value={range.from} max={range.to} required onChange={(e) => e.target.value && setRange({ ...range, from: e.target.value })} />
        </div>
        <div className={styles.field}>
          <label className={styles.label} htmlFor={toId}>To</label>
          <input id={toId} className={styles.date} type="date" value={range.to} min={range.from} required onChange={(e) => e.target.value && setRange({ ...range, to: e.target.value })} />
        </div>
        <Segmented<AnalyticsBucket> legend="Group by" value={range.bucket} options={[{ id: 'day', label: 'Day' }, { id: 'week', label: 'Week' }]} onChange={(bucket) => setRange({ ...range, bucket })} />
        <Segmented<View> legend="Show" value={view} options={[{ id: 'charts', label: 'Charts' }, { id: 'table', label: 'Table' }]} onChange={setView} />
        <span className={styles.grow} />
        {query.isFetching && data ? <Spinner size="sm" label="Updating" /> : null}
        <Button variant="secondary" size="sm" icon={<Download />} disabled={!data} onClick={() => data && download(project, data)}>
          Download CSV
        </Button>
      </div>
      {query.isError ? (
        <EmptyState
          tone="danger"
          icon={<RefreshCw />}
          title="Analytics could not be loaded"
          description={serverMessage(query.error, 'Check your connection and try again.')}
          role="alert"
          action={<Button variant="primary" onClick={() => void query.refetch()}>Try again</Button>}
        />
      ) : !data ? (
        <div className={styles.loading} role="status" aria-busy="true">
          <Spinner size="sm" />
          Loading analytics...
        </div>
      ) : isEmpty(data) ? (
        <EmptyState icon={<BarChart3 />} title="No activity in these dates" description="Shapes saved, images submitted and reviewed, and issues show here once people work on the project." />
      ) : (
        <>
          <Summary data={data} />
          {view === 'table' ? (
            <Tables data={data} />
          ) : (
            <Suspense
              fallback={
                <div className={styles.loading} role="status">
                  <Spinner size="sm" />
                  Loading charts...
                </div>
              }
            >
              <AnalyticsCharts data={data} />
            </Suspense>
          )}
          {hasGroundTruth(data) ? <GroundTruthScores data={data} /> : null}
        </>
      )}
    </div>
  );
}

export default AnalyticsTab;
