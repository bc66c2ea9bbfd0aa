// The editor's History view (issue 14): the image's saved versions, newest first, in the right
// sidebar in place of the annotation list. Each entry says who saved it, when (relative, the exact
// time in its tooltip) and what it did; choosing one (click, Enter or Space) shows that version on
// the canvas, read only (EditorScreen's preview). Pages back with "Show older"; versions past the
// history's retention can no longer be looked at and say so.
import { useInfiniteQuery, type InfiniteData } from '@tanstack/react-query';
import { CircleAlert, Clock, History as HistoryIcon, RotateCcw } from 'lucide-react';
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { HistoryEntry, HistoryResponse } from '../../../contract/annotation-api';
import { serverMessage } from '../../api/client';
import { Badge } from '../../components/Badge';
import { Button } from '../../components/Button';
import { Skeleton } from '../../components/Skeleton';
import { Tooltip } from '../../components/Tooltip';
import { formatRelativeDate } from '../../lib/format';
import { editorApi } from '../../api/annotations/editorApi';
import styles from './AnnotatePage.module.css';

/** Versions per page. */
export const HISTORY_PAGE = 50;
/** While the view is open, other people's saves show up within this. */
const REFRESH_MS = 30_000;

export const historyKey = (imageId: string) => ['annotation-history', imageId] as const;

export type HistoryData = InfiniteData<HistoryResponse, number | undefined>;

/** The image's history, shared by the panel and the screen (the banner, the restore's base version). */
export function useImageHistory(imageId: string, projectId: string, enabled: boolean, live: boolean) {
  return useInfiniteQuery({
    queryKey: historyKey(imageId),
    queryFn: ({ pageParam, signal }) => editorApi.history(imageId, projectId, { before: pageParam, limit: HISTORY_PAGE }, signal),
    initialPageParam: undefined as number | undefined,
    // A short page is the last one; so is a page that reached version 1.
    getNextPageParam: (last) => {
      const tail = last.entries[last.entries.length - 1];
      return last.entries.length < HISTORY_PAGE || !tail || tail.version <= 1 ? undefined : tail.version;
    },
    enabled,
    refetchInterval: live ? REFRESH_MS : false,
  });
}

/** 'Alice Martin', or 'Deleted account' when the saver's account is gone. */
export function savedBy(e: Pick<HistoryEntry, 'user_name' | 'user_id'>): string {
  return e.user_name ?? 'Deleted account';
}

/** '+3 added · 1 changed · 2 removed' (parts that are 0 left out). */
export function describeChanges(e: Pick<HistoryEntry, 'added' | 'changed' | 'removed'>): string {
  const parts: string[] = [];
  if (e.added) parts.push(`+${e.added.toLocaleString()} added`);
  if (e.changed) parts.push(`${e.changed.toLocaleString()} changed`);
  if (e.removed) parts.push(`${e.removed.toLocaleString()} removed`);
  return parts.length ? parts.join(' · ') : 'No changes';
}

/** 'Just now', '5 min ago', then the app's relative dates (time today, 'Yesterday', 'N days ago', a short date). */
export function formatWhen(iso: string, now: Date = new Date()): string {
  const at = new Date(iso).getTime();
  if (Number.isNaN(at)) return '';
  const seconds = Math.max(0, (now.getTime() - at) / 1000);
  if (seconds < 45) return 'Just now';
  if (seconds < 3600) return `${Math.max(1, Math.round(seconds / 60))} min ago`;
  return formatRelativeDate(iso, now);
}

/** The exact time, for tooltips: 'Mar 4, 2025, 10:42:13 AM'. */
export function formatExact(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

/** Re-renders every `ms` so relative times move on. */
export function useNow(ms = 30_000): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const t = window.setInterval(() => setNow(new Date()), ms);
    return () => window.clearInterval(t);
  }, [ms]);
  return now;
}

export interface HistoryPanelProps {
  query: ReturnType<typeof useImageHistory>;
  /** The version on the canvas: an earlier one being looked at, or null for the current document. */
  shownVersion: number | null;
  /** An entry was chosen (the current one means "back to the current document"). */
  onChoose(entry: HistoryEntry, current: boolean): void;
  /** Focus the chosen (or first) entry once the list is there (the view was opened from the keyboard). */
  autoFocus?: boolean;
}

// Long because the list, its loading and error states and its keyboard (Up, Down, Home, End)
// share the focused entry.
export function HistoryPanel({ query, shownVersion, onChoose, autoFocus = false }: HistoryPanelProps) {
  const now = useNow();
  const listRef = useRef<HTMLDivElement>(null);
  const pages = query.data?.pages ?? [];
  const head = pages[0];
  const entries = pages.flatMap((p) => p.entries);
  const current = head?.version ?? null;
  const oldest = head?.oldest_version ?? 0;
  const selected = shownVersion ?? current;
  const ready = entries.length > 0;

  // The Tab stop of the list (roving focus): the chosen entry, else the first.
  const tabStop = entries.some((e) => e.version === selected) ? selected : (entries[0]?.version ?? null);

  const focused = useRef(false);
  useEffect(() => {
    if (!autoFocus || focused.current || !ready) return;
    focused.current = true;
    listRef.current?.querySelector<HTMLElement>('[role="option"][tabindex="0"]')?.focus();
  }, [autoFocus, ready]);

  const onListKey = (e: KeyboardEvent<HTMLDivElement>) => {
    if (!['ArrowDown', 'ArrowUp', 'Home', 'End'].includes(e.key)) return;
    const options = [...(listRef.current?.querySelectorAll<HTMLElement>('[role="option"]') ?? [])];
    if (!options.length) return;
    e.preventDefault();
    e.stopPropagation();
    const at = options.indexOf(document.activeElement as HTMLElement);
    const next = e.key === 'Home' ? 0 : e.key === 'End' ? options.length - 1 : Math.min(options.length - 1, Math.max(0, at + (e.key === 'ArrowDown' ? 1 : -1)));
    options[next]?.focus();
  };

  if (query.isPending) {
    return (
      <div className={styles.historyBody} aria-busy="true">
        <span className="visually-hidden" role="status">
          Loading the history...
        </span>
        {[0, 1, 2, 3].map((i) => (
          <div key={i} className={styles.versionSkeleton} aria-hidden="true">
            <Skeleton className={styles.skeletonTitle} />
            <Skeleton className={styles.skeletonLine} />
            <Skeleton className={styles.skeletonShort} />
          </div>
        ))}
      </div>
    );
  }

  if (query.isError && !ready) {
    return (
      <div className={styles.sidebarEmpty} role="alert">
        <CircleAlert aria-hidden="true" />
        <p>The history could not be loaded</p>
        <span>{serverMessage(query.error, 'Check your connection and try again.')}</span>
        <Button size="sm" className={styles.historyRetry} onClick={() => void query.refetch()}>
          Try again
        </Button>
      </div>
    );
  }

  if (!ready) {
    return (
      <div className={styles.sidebarEmpty}>
        <HistoryIcon aria-hidden="true" />
        <p>No changes saved yet</p>
        <span>Each save of this image becomes a version you can look at and restore.</span>
      </div>
    );
  }

  const last = entries[entries.length - 1]!;
  // Versions before the last one listed exist no more (the retention swept them), or some listed
  // ones are past what the server can rebuild.
  const pastRetention = !query.hasNextPage && (last.version > 1 || last.version < oldest);

  return (
    <div className={styles.historyBody}>
      <div ref={listRef} className={styles.versions} role="listbox" aria-label="Versions" onKeyDown={onListKey}>
        {entries.map((e) => (
          <VersionRow
            key={e.version}
            entry={e}
            current={e.version === current}
            selected={e.version === selected}
            expired={e.version < oldest}
            tabbable={e.version === tabStop}
            now={now}
            onChoose={() => onChoose(e, e.version === current)}
          />
        ))}
      </div>
      {query.hasNextPage ? (
        <div className={styles.historyMore}>
          <Button size="sm" variant="ghost" fullWidth busy={query.isFetchingNextPage} busyLabel="Loading..." onClick={() => void query.fetchNextPage()}>
            Show older
          </Button>
        </div>
      ) : null}
      {pastRetention ? (
        <p className={styles.historyNote}>
          <Clock aria-hidden="true" />
          <span>Older versions are past the history&apos;s retention period and are no longer kept.</span>
        </p>
      ) : null}
      {query.isError ? (
        <p className={styles.historyNote} data-tone="danger" role="alert">
          <CircleAlert aria-hidden="true" />
          <span>{serverMessage(query.error, 'The history could not be refreshed.')}</span>
        </p>
      ) : null}
    </div>
  );
}

interface VersionRowProps {
  entry: HistoryEntry;
  current: boolean;
  selected: boolean;
  expired: boolean;
  tabbable: boolean;
  now: Date;
  onChoose(): void;
}

function VersionRow({ entry: e, current, selected, expired, tabbable, now, onChoose }: VersionRowProps) {
  const who = savedBy(e);
  const when = formatWhen(e.saved_at, now);
  const exact = formatExact(e.saved_at);
  const what = describeChanges(e);
  const label = [
    `Version ${e.version}`,
    current ? 'current' : null,
    `saved by ${who}, ${when} (${exact})`,
    what,
    e.restored_from !== null ? `restored from version ${e.restored_from}` : null,
    expired ? 'no longer kept: past the history retention period' : null,
  ]
    .filter(Boolean)
    .join(', ');
  const choose = () => {
    if (!expired) onChoose();
  };
  return (
    <div
      className={styles.version}
      role="option"
      aria-selected={selected}
      aria-disabled={expired || undefined}
      aria-label={label}
      data-current={current || undefined}
      tabIndex={tabbable ? 0 : -1}
      onClick={choose}
      onKeyDown={(ev) => {
        if (ev.target !== ev.currentTarget || (ev.key !== 'Enter' && ev.key !== ' ')) return;
        ev.preventDefault();
        ev.stopPropagation();
        choose();
      }}
    >
      <span className={styles.versionTop}>
        <span className={styles.versionName}>Version {e.version.toLocaleString()}</span>
        {current ? (
          <Badge tone="accent" className={styles.versionBadge}>
            Current
          </Badge>
        ) : null}
      </span>
      <span className={styles.versionMeta}>
        <span className={styles.versionWho} data-deleted={e.user_name === null || undefined}>
          {who}
        </span>
        <span aria-hidden="true">·</span>
        <Tooltip content={exact} side="left">
          <time className={styles.versionWhen} dateTime={e.saved_at}>
            {when}
          </time>
        </Tooltip>
      </span>
      <span className={styles.versionChanges}>{what}</span>
      {e.restored_from !== null ? (
        <span className={styles.versionRestored}>
          <RotateCcw aria-hidden="true" />
          Restored from version {e.restored_from.toLocaleString()}
        </span>
      ) : null}
      {expired ? (
        <span className={styles.versionExpired}>
          <Clock aria-hidden="true" />
          No longer kept
        </span>
      ) : null}
    </div>
  );
}
