// The Data tab's class panel (issue 32 §4): each class with its count of shapes and of images
// (GET /annotations/stats, archived images left out), a click filters by it (again: takes it out);
// then the annotation filters: with or without annotations, and a count range. Every choice goes
// through the view store, so it lands in the URL; the filters look through every folder. Also the
// 'Shapes on tiles' toggle (TileShapes.tsx).
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import type { ProjectClass } from '../../../../contract/projects';
import { api } from '../../../api/client';
import { Button } from '../../../components/Button';
import { hasAnnotationFilter, NO_ANNOTATION_FILTER, type AnnotationFilter } from '../../../lib/links';
import { useDataView } from '../../../stores/dataView';
import styles from './ClassPanel.module.css';

export const annotationStatsKey = (projectId: string) => ['annotation-stats', projectId] as const;

interface ClassRow {
  name: string;
  color: string | null;
  shapes: number;
  images: number;
}

/** The project's classes in their order, then any other class found on images (an import's, a removed one's). */
export function classRows(classes: readonly ProjectClass[], byClass: Record<string, number>, imagesByClass: Record<string, number>): ClassRow[] {
  const known = new Set(classes.map((c) => c.name));
  const others = Object.keys(byClass)
    .filter((name) => !known.has(name))
    .sort((a, b) => a.localeCompare(b));
  return [...classes.map((c) => ({ name: c.name, color: c.color })), ...others.map((name) => ({ name, color: null }))].map((c) => ({
    ...c,
    shapes: byClass[c.name] ?? 0,
    images: imagesByClass[c.name] ?? 0,
  }));
}

export interface ClassPanelProps {
  projectId: string;
  classes: readonly ProjectClass[];
  filter: AnnotationFilter;
  reloadToken: number;
  /** The tiles draw their image's shapes (TileShapes.tsx). */
  showShapes: boolean;
  onShowShapes(on: boolean): void;
}

export function ClassPanel({ projectId, classes, filter, reloadToken, showShapes, onShowShapes }: ClassPanelProps) {
  const view = useDataView.getState;
  // Read again whenever the tab opens, however fresh the cached counts: Back from the editor comes
  // seconds after the last read, and kept for 10 s they left out the shapes just drawn.
  const stats = useQuery({ queryKey: [...annotationStatsKey(projectId), reloadToken], queryFn: () => api.annotationStats(projectId), staleTime: 10_000, refetchOnMount: 'always' });
  const rows = classRows(classes, stats.data?.by_class ?? {}, stats.data?.images_by_class ?? {});
  return (
    <aside className={styles.panel} aria-label="Classes and annotation filters">
      <section aria-labelledby="class-panel-title">
        <h3 id="class-panel-title" className={styles.title}>
          Classes
        </h3>
        {rows.length > 0 && !stats.isError ? (
          <div className={styles.columns} aria-hidden="true">
            <span>Class</span>
            <span>Shapes</span>
            <span>Images</span>
          </div>
        ) : null}
        {stats.isError ? (
          <p className={styles.note}>Counts could not be loaded.</p>
        ) : rows.length === 0 ? (
          <p className={styles.note}>{stats.isPending ? 'Loading…' : 'No classes yet.'}</p>
        ) : (
          <ul className={styles.list}>
            {rows.map((row) => {
              const on = filter.classes.includes(row.name);
              return (
                <li key={row.name}>
                  <button
                    type="button"
                    className={styles.row}
                    aria-pressed={on}
                    title={on ? `Stop filtering by ${row.name}` : `Show images with ${row.name}`}
                    onClick={() => view().toggleClass(row.name)}
                  >
                    <span className={styles.swatch} style={row.color ? { background: row.color } : undefined} aria-hidden="true" />
                    <span className={styles.name}>{row.name}</span>
                    <span className={`${styles.count} tabular`} aria-label={`${row.shapes} shapes`}>
                      {stats.isPending ? '…' : row.shapes.toLocaleString()}
                    </span>
                    <span className={`${styles.count} tabular`} aria-label={`${row.images} images`}>
                      {stats.isPending ? '…' : row.images.toLocaleString()}
                    </span>
                  </button>
                </li>
              );
            })}
          </ul>
        )}
      </section>
      <label className={styles.toggle}>
        <input type="checkbox" checked={showShapes} onChange={(e) => onShowShapes(e.target.checked)} />
        Shapes on tiles
      </label>
      <AnnotationCountFilter filter={filter} />
      <PendingFilter filter={filter} />
      {hasAnnotationFilter(filter) ? (
        <Button variant="ghost" size="sm" onClick={() => view().setAnnotationFilter(NO_ANNOTATION_FILTER)}>
          Clear annotation filters
        </Button>
      ) : null}
    </aside>
  );
}

const ANNOTATED_CHOICES: { value: AnnotationFilter['annotated']; label: string }[] = [
  { value: null, label: 'Any' },
  { value: 'yes', label: 'Annotated' },
  { value: 'no', label: 'None' },
];

/** One choice of a few, as pressed buttons in a row. */
function Segmented<V>({ label, choices, value, onChoose }: { label: string; choices: readonly { value: V; label: string }[]; value: V; onChoose(value: V): void }) {
  return (
    <div className={styles.segmented} role="group" aria-label={label}>
      {choices.map((c) => (
        <button key={c.label} type="button" aria-pressed={value === c.value} onClick={() => onChoose(c.value)}>
          {c.label}
        </button>
      ))}
    </div>
  );
}

const PENDING_CHOICES: { value: NonNullable<AnnotationFilter['pending']> | null; label: string }[] = [
  { value: null, label: 'Any' },
  { value: 'yes', label: 'Pending' },
  { value: 'no', label: 'None' },
];

/** With or without a model's pending predictions (issue 34): query has_pending_predictions. */
function PendingFilter({ filter }: { filter: AnnotationFilter }) {
  const view = useDataView.getState;
  return (
    <section aria-labelledby="pending-filter-title">
      <h3 id="pending-filter-title" className={styles.title}>
        Predictions
      </h3>
      <Segmented label="Has pending predictions" choices={PENDING_CHOICES} value={filter.pending ?? null} onChoose={(pending) => view().setAnnotationFilter({ pending })} />
    </section>
  );
}

/** Annotated or not (three buttons), and a min / max count applied on Enter or when the field is left. */
function AnnotationCountFilter({ filter }: { filter: AnnotationFilter }) {
  const view = useDataView.getState;
  const [min, setMin] = useState(filter.min === null ? '' : String(filter.min));
  const [max, setMax] = useState(filter.max === null ? '' : String(filter.max));
  useEffect(() => setMin(filter.min === null ? '' : String(filter.min)), [filter.min]);
  useEffect(() => setMax(filter.max === null ? '' : String(filter.max)), [filter.max]);
  const parsed = (text: string) => (text.trim() === '' ? null : /^\d+$/.test(text.trim()) ? Number(text.trim()) : undefined);
  const lo = parsed(min);
  const hi = parsed(max);
  const problem = lo === undefined || hi === undefined ? 'Whole numbers from 0' : lo !== null && hi !== null && lo > hi ? 'Min is above max' : null;
  const apply = (e?: FormEvent) => {
    e?.preventDefault();
    if (problem || lo === undefined || hi === undefined) return;
    if (lo !== filter.min || hi !== filter.max) view().setAnnotationFilter({ min: lo, max: hi });
  };
  return (
    <section aria-labelledby="annotation-filter-title">
      <h3 id="annotation-filter-title" className={styles.title}>
        Annotations
      </h3>
      <Segmented label="Annotated or not" choices={ANNOTATED_CHOICES} value={filter.annotated} onChoose={(annotated) => view().setAnnotationFilter({ annotated })} />
      <form className={styles.range} onSubmit={apply} onBlur={() => apply()} noValidate>
        <label>
          <span>Min</span>
          <input inputMode="numeric" value={min} onChange={(e) => setMin(e.target.value)} aria-invalid={problem ? true : undefined} aria-describedby={problem ? 'annotation-range-problem' : undefined} />
        </label>
        <span aria-hidden="true">–</span>
        <label>
          <span>Max</span>
          <input inputMode="numeric" value={max} onChange={(e) => setMax(e.target.value)} aria-invalid={problem ? true : undefined} aria-describedby={problem ? 'annotation-range-problem' : undefined} />
        </label>
        <button type="submit" className={styles.hiddenSubmit} tabIndex={-1}>
          Apply
        </button>
      </form>
      {problem ? (
        <p id="annotation-range-problem" className={styles.problem} role="alert">
          {problem}
        </p>
      ) : null}
    </section>
  );
}

/** The active annotation filters as removable chips (in the folder path bar). */
export function AnnotationFilterChips({ filter }: { filter: AnnotationFilter }) {
  const view = useDataView.getState;
  const chips: { key: string; label: string; remove(): void }[] = [
    ...filter.classes.map((name) => ({ key: `class:${name}`, label: name, remove: () => view().toggleClass(name) })),
    ...(filter.annotated ? [{ key: 'annotated', label: filter.annotated === 'yes' ? 'Annotated' : 'No annotations', remove: () => view().setAnnotationFilter({ annotated: null }) }] : []),
    ...(filter.pending ? [{ key: 'pending', label: filter.pending === 'yes' ? 'Pending predictions' : 'No pending predictions', remove: () => view().setAnnotationFilter({ pending: null }) }] : []),
    ...(filter.min !== null || filter.max !== null
      ? [{ key: 'range', label: rangeLabel(filter.min, filter.max), remove: () => view().setAnnotationFilter({ min: null, max: null }) }]
      : []),
  ];
  return (
    <ul className={styles.chips} aria-label="Active annotation filters">
      {chips.map((chip) => (
        <li key={chip.key}>
          <button type="button" className={styles.chip} onClick={chip.remove} aria-label={`Remove filter ${chip.label}`}>
            <span className={styles.chipText}>{chip.label}</span>
            <span aria-hidden="true" className={styles.chipX}>
              ×
            </span>
          </button>
        </li>
      ))}
    </ul>
  );
}

function rangeLabel(min: number | null, max: number | null): string {
  if (min !== null && max !== null) return min === max ? `${min} annotations` : `${min}–${max} annotations`;
  return min !== null ? `${min}+ annotations` : `At most ${max} annotations`;
}
