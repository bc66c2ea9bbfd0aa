import type { ReactNode } from 'react';
import styles from './EmptyState.module.css';

export interface EmptyStateProps {
  icon: ReactNode;
  title: string;
  description?: ReactNode;
  action?: ReactNode;
  tone?: 'accent' | 'danger' | 'neutral';
  bordered?: boolean;
  /** role="alert" for error states so screen readers announce them. */
  role?: string;
}

export function EmptyState({ icon, title, description, action, tone = 'accent', bordered = true, role }: EmptyStateProps) {
  return (
    <div className={[styles.empty, bordered && styles.bordered].filter(Boolean).join(' ')} role={role}>
      <span className={styles.icon} data-tone={tone} aria-hidden="true">
        {icon}
      </span>
      <h2 className={styles.title}>{title}</h2>
      {description ? <p className={styles.description}>{description}</p> : null}
      {action ? <div className={styles.action}>{action}</div> : null}
    </div>
  );
}
