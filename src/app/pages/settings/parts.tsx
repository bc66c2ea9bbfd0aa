// Building blocks of the Settings sections: cards, label/value rows, the role picker.
import type { ReactNode } from 'react';
import { ROLES, type Role } from '../../../contract/account';
import { ROLE_RANK } from '../../../contract/teams';
import { ROLE_LABEL } from '../../stores/permissions';
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

/** A labelled native select of roles, never above `max`. */
export function RoleSelect({ id, label, value, onChange, max, disabled, hideLabel }: { id: string; label: string; value: Role; onChange(role: Role): void; max: Role; disabled?: boolean; hideLabel?: boolean }) {
  return (
    <span className={styles.selectField}>
      <label htmlFor={id} className={hideLabel ? 'visually-hidden' : styles.selectLabel}>
        {label}
      </label>
      <select id={id} className={styles.select} value={value} disabled={disabled} onChange={(e) => onChange(e.target.value as Role)}>
        {ROLES_DESC.filter((r) => ROLE_RANK[r] <= ROLE_RANK[max] || r === value).map((r) => (
          <option key={r} value={r}>
            {ROLE_LABEL[r]}
          </option>
        ))}
      </select>
    </span>
  );
}
