import styles from './Skeleton.module.css';

/** A placeholder block; size and shape come from the caller's className. */
export function Skeleton({ className }: { className?: string }) {
  return <span className={[styles.skeleton, className].filter(Boolean).join(' ')} aria-hidden="true" />;
}
