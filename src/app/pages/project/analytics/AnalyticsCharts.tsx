// The Analytics tab's charts (Chart.js, loaded with this module only when the charts show): the
// stage burn-down over the buckets, each member's shapes and images, and each member's acceptance
// rate. Colours come from the design tokens (stage colours) and the class palette; each canvas
// carries a text summary for screen readers, and the table view holds every number.
import { useEffect, useRef } from 'react';
import { BarController, BarElement, CategoryScale, Chart, Filler, Legend, LineController, LineElement, LinearScale, PointElement, Tooltip, type ChartConfiguration } from 'chart.js';
import type { AnalyticsResponse } from '../../../../contract/analytics';
import { CLASS_PALETTE } from '../../../../contract/projects';
import { IMAGE_STATUSES, statusLabel } from '../../../lib/stages';
import { acceptanceRate } from './csv';
import styles from './AnalyticsTab.module.css';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, LineController, LineElement, PointElement, Filler, Legend, Tooltip);

const token = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#667085';

// Each chart is typed with its own chart type (T, given explicitly), not as any chart type chart.js knows: checking
// `new Chart` against the union of them all cost the type check about 9 s of CPU.
type ChartKind = 'line' | 'bar';

function ChartCanvas<T extends ChartKind>({ config, label }: { config: ChartConfiguration<T>; label: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (!canvas.current) return;
    const chart = new Chart<T>(canvas.current, config);
    return () => chart.destroy();
  }, [config]);
  return (
    <div className={styles.chartBox}>
      <canvas ref={canvas} role="img" aria-label={label} />
    </div>
  );
}

const baseOptions = () => ({
  responsive: true,
  maintainAspectRatio: false,
  animation: false as const,
  plugins: { legend: { position: 'bottom' as const, labels: { color: token('--color-text-secondary'), boxWidth: 12 } } },
  scales: {
    x: { ticks: { color: token('--color-text-muted'), maxTicksLimit: 12, maxRotation: 0 }, grid: { display: false } },
    y: { beginAtZero: true, ticks: { color: token('--color-text-muted'), precision: 0 }, grid: { color: token('--color-border') } },
  },
});

const MEMBER_SERIES = [
  { key: 'shapes_created', label: 'Shapes created' },
  { key: 'shapes_edited', label: 'Shapes edited' },
  { key: 'shapes_deleted', label: 'Shapes deleted' },
  { key: 'images_submitted', label: 'Images submitted' },
  { key: 'images_accepted', label: 'Images accepted' },
] as const;

export default function AnalyticsCharts({ data }: { data: AnalyticsResponse }) {
  const labels = data.buckets.map((b) => b.start);
  const last = data.buckets.at(-1)?.stage_counts;
  const burnDown: ChartConfiguration<'line'> = {
    type: 'line',
    data: {
      labels,
      datasets: IMAGE_STATUSES.map((s) => ({
        label: statusLabel(s),
        data: data.buckets.map((b) => b.stage_counts[s]),
        borderColor: token(`--color-status-${s}`),
        backgroundColor: `${token(`--color-status-${s}`)}33`,
        fill: true,
        pointRadius: data.buckets.length > 60 ? 0 : 2,
        tension: 0,
      })),
    },
    options: { ...baseOptions(), scales: { ...baseOptions().scales, y: { ...baseOptions().scales.y, stacked: true } } },
  };
  const outline = token('--color-text-secondary');
  const members: ChartConfiguration<'bar'> = {
    type: 'bar',
    data: {
      labels: data.members.map((m) => m.user.name),
      datasets: MEMBER_SERIES.map((s, i) => ({ label: s.label, data: data.members.map((m) => m[s.key]), backgroundColor: CLASS_PALETTE[i], borderColor: outline, borderWidth: 1 })),
    },
    options: baseOptions(),
  };
  const rated = data.members.map((m) => ({ name: m.user.name, rate: acceptanceRate(m) })).filter((m): m is { name: string; rate: number } => m.rate !== null);
  const acceptance: ChartConfiguration<'bar'> = {
    type: 'bar',
    data: {
      labels: rated.map((m) => m.name),
      datasets: [{ label: 'Accepted of reviewed (%)', data: rated.map((m) => Math.round(m.rate * 1000) / 10), backgroundColor: token('--color-status-complete'), borderColor: outline, borderWidth: 1 }],
    },
    options: { ...baseOptions(), indexAxis: 'y', scales: { x: { min: 0, max: 100, ticks: { color: token('--color-text-muted') } }, y: { ticks: { color: token('--color-text-muted') }, grid: { display: false } } } },
  };
  const stageSummary = last ? IMAGE_STATUSES.map((s) => `${statusLabel(s)} ${last[s]}`).join(', ') : 'no buckets';
  return (
    <div className={styles.charts}>
      <figure className={styles.card}>
        <figcaption className={styles.cardTitle}>Stage burn-down</figcaption>
        <ChartConfigMemo<'line'> config={burnDown} label={`Images per stage from ${labels[0] ?? ''} to ${labels.at(-1) ?? ''}; at the end: ${stageSummary}`} deps={[data]} />
      </figure>
      <figure className={styles.card}>
        <figcaption className={styles.cardTitle}>Work per member</figcaption>
        <ChartConfigMemo<'bar'>
          config={members}
          label={data.members.map((m) => `${m.user.name}: ${m.shapes_created} created, ${m.shapes_edited} edited, ${m.shapes_deleted} deleted, ${m.images_submitted} submitted, ${m.images_accepted} accepted`).join('; ')}
          deps={[data]}
        />
      </figure>
      <figure className={styles.card}>
        <figcaption className={styles.cardTitle}>Acceptance rate</figcaption>
        {rated.length ? (
          <ChartConfigMemo<'bar'> config={acceptance} label={rated.map((m) => `${m.name}: ${Math.round(m.rate * 100)}% accepted`).join('; ')} deps={[data]} />
        ) : (
          <p className={styles.muted}>No image was reviewed in these dates.</p>
        )}
      </figure>
    </div>
  );
}

/** Rebuilds the chart only when the data changes (a new config object every render would redraw it on each). */
function ChartConfigMemo<T extends ChartKind>({ config, label, deps }: { config: ChartConfiguration<T>; label: string; deps: unknown[] }) {
  const kept = useRef<{ deps: unknown[]; config: ChartConfiguration<T> } | null>(null);
  if (!kept.current || kept.current.deps.some((d, i) => d !== deps[i])) kept.current = { deps, config };
  return <ChartCanvas<T> config={kept.current.config} label={label} />;
}
