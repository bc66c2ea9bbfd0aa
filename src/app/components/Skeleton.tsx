import type { ReactNode } from 'react';
import styles from './Skeleton.module.css';

/** A placeholder block; size and shape come from the caller's className. */
export function Skeleton({ className }: { className?: string }) {
  return <span className={[styles.skeleton, className].filter(Boolean).join(' ')} aria-hidden="true" />;
}

/**
 * The placeholders standing in for something that loads, as one named, busy status: a screen
 * reader hears `label` ("Loading projects") once, not each grey block (an aria-label needs the role).
 */
export function SkeletonGroup({ label, className, children }: { label: string; className?: string; children: ReactNode }) {
  return (
    <div className={className} role="status" aria-busy="true" aria-label={label}>
      {children}
    </div>
  );
}
