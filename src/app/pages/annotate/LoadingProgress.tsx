// The loading progress of a large document: a small store the
// screen's open path reports into, and the bar under the stage's spinner that reads it.
import { useSyncExternalStore } from 'react';
import styles from './AnnotatePage.module.css';

/** Documents from this size on show their loading progress (smaller ones load in a blink). */
const LARGE_DOCUMENT = 2000;

interface LoadProgress {
  imageId: string;
  /** Annotations in the document. */
  total: number;
  /** 0-100. */
  percent: number;
}

/** The loading progress, outside React state: only the progress bar re-renders (once per percent). */
export function progressStore() {
  let value: LoadProgress | null = null;
  const listeners = new Set<() => void>();
  const set = (next: LoadProgress | null) => {
    value = next;
    for (const l of [...listeners]) l();
  };
  return {
    get: () => value,
    subscribe(listener: () => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    clear: () => set(null),
    /** `fraction` of the whole load (0-1) for the document of `total` annotations. */
    report(imageId: string, total: number, fraction: number) {
      const percent = Math.min(100, Math.floor(fraction * 100));
      if (value && value.imageId === imageId && value.total === total && value.percent === percent) return;
      set({ imageId, total, percent });
    },
  };
}
export type ProgressStore = ReturnType<typeof progressStore>;

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
