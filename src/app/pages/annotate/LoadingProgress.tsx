// The loading progress of a large document: the bar under the stage's spinner, reading the store
// the session's open path reports into (src/app/editor-session/imageLoading.ts's progressStore).
import { useSyncExternalStore } from 'react';
import type { ProgressStore } from '../../editor-session/imageLoading';
import styles from './AnnotatePage.module.css';

/** Documents from this size on show their loading progress (smaller ones load in a blink). */
const LARGE_DOCUMENT = 2000;

/** 'Loading 100,000 annotations... 40%' with a bar, for large documents. */
export function LoadingProgress({ store, imageId }: { store: ProgressStore; imageId: string }) {
  const p = useSyncExternalStore(store.subscribe, store.get);
  if (!p || p.imageId !== imageId || p.total < LARGE_DOCUMENT) return null;
  const label = `Loading ${p.total.toLocaleString()} annotations... ${p.percent}%`;
  return (
    <div className={styles.loadProgress}>
      <span className={styles.loadTrack} role="progressbar" aria-label={`Loading ${p.total.toLocaleString()} annotations`} aria-valuemin={0} aria-valuemax={100} aria-valuenow={p.percent}>
        <span className={styles.loadFill} style={{ width: `${p.percent}%` }} />
      </span>
      <span className={styles.loadLabel}>{label}</span>
    </div>
  );
}
