// Building blocks of the Settings sections: cards, label/value rows, the role picker, list-row
// metadata that wraps between its parts (never inside an address or a date).
import { Fragment, type ReactNode } from 'react';
import { ROLES, type Role } from '../../../contract/account';
import { ROLE_RANK } from '../../../contract/teams';
import { ROLE_LABEL } from '../../stores/permissions';
import { serverMessage } from '../../api/client';
import { Banner } from '../../components/Banner';
import { Button } from '../../components/Button';
import { Skeleton, SkeletonGroup } from '../../components/Skeleton';
import styles from './SettingsPage.module.css';

export function Card({ title, description, children, actions }: { title: string; description?: string; children: ReactNode; actions?: ReactNode }) {
  return (
    <section className={styles.card} aria-label={title}>
      <header className={styles.cardHead}>
        <div>
          <h2 className={styles.cardTitle}>{title}</h2>
          {description ? <p className={styles.cardDescription}>{description}</p> : null}
        </div>
        {actions ? <div className={styles.cardActions}>{actions}</div> : null}
      </header>
      <div className={styles.cardBody}>{children}</div>
    </section>
  );
}

export function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className={styles.row}>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

export { ROLE_LABEL };
/** Highest first, as people read a role list. */
export const ROLES_DESC = [...ROLES].sort((a, b) => ROLE_RANK[b] - ROLE_RANK[a]);

/**
 * A labelled native select of roles, never above `max`. `md` (40 px) sits beside text fields in
 * forms; the compact `sm` (32 px, label hidden) sits in list rows.
 */
export function RoleSelect({ id, label, value, onChange, max, disabled, hideLabel, size = 'md' }: { id: string; label: string; value: Role; onChange(role: Role): void; max: Role; disabled?: boolean; hideLabel?: boolean; size?: 'sm' | 'md' }) {
  return (
    <span className={styles.selectField}>
      <label htmlFor={id} className={hideLabel ? 'visually-hidden' : styles.selectLabel}>
        {label}
      </label>
      <select id={id} className={[styles.select, size === 'sm' ? styles.selectSm : null].filter(Boolean).join(' ')} value={value} disabled={disabled} onChange={(e) => onChange(e.target.value as Role)}>
        {ROLES_DESC.filter((r) => ROLE_RANK[r] <= ROLE_RANK[max] || r === value).map((r) => (
          <option key={r} value={r}>
            {ROLE_LABEL[r]}
          </option>
        ))}
      </select>
    </span>
  );
}

/** A row's secondary line: its parts joined by " · ", each kept whole when the line wraps. */
export function Meta({ parts }: { parts: ReactNode[] }) {
  return (
    <span className={styles.itemMeta}>
      {parts.map((part, i) => (
        <Fragment key={i}>
          {i > 0 ? ' ' : null}
          <span className={styles.metaPart}>
            {i > 0 ? '· ' : null}
            {part}
          </span>
        </Fragment>
      ))}
    </span>
  );
}

/** Rows shaped like a list's items (a title and a line under it) while the list loads. */
export function ListSkeleton({ rows, label }: { rows: number; label: string }) {
  return (
    <SkeletonGroup className={styles.list} label={label}>
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} className={styles.item}>
          <div className={styles.itemMain}>
            <Skeleton className={styles.skeletonTitle} />
            <Skeleton className={styles.skeletonMeta} />
          </div>
          <Skeleton className={styles.skeletonAction} />
        </div>
      ))}
    </SkeletonGroup>
  );
}

/** A card's message (a failed load with Try again, or a failed action), spaced like its rows. */
export function CardAlert({ error, fallback, onRetry }: { error: unknown; fallback: string; onRetry?: () => void }) {
  return (
    <div className={styles.cardAlert}>
      <Banner
        tone="danger"
        actions={
          onRetry ? (
            <Button size="sm" onClick={onRetry}>
              Try again
            </Button>
          ) : undefined
        }
      >
        {typeof error === 'string' ? error : serverMessage(error, fallback)}
      </Banner>
    </div>
  );
}
