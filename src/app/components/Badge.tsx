import type { ReactNode } from 'react';
import styles from './Badge.module.css';

export function Badge({ tone = 'neutral', children, className }: { tone?: 'neutral' | 'accent' | 'success' | 'warning'; children: ReactNode; className?: string }) {
  return <span className={[styles.badge, tone !== 'neutral' && styles[tone], className].filter(Boolean).join(' ')}>{children}</span>;
}
