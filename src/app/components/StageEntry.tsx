// An image stage as a picker or a filter shows it (src/app/lib/stages.ts): its colour dot, its label
// and, quieter, its detail when it has one (none since issue 29: one name per stage). The Data tab's Stage menus and filter, and the
// editor's stage picker.
import type { StageOption } from '../lib/stages';
import styles from './StageEntry.module.css';

export function StageEntry({ option }: { option: StageOption }) {
  return (
    <span className={styles.stageEntry} data-status={option.status}>
      <span className={styles.statusDot} aria-hidden="true" />
      <span className={styles.stageLabel}>{option.label}</span>
      {option.detail ? <span className={styles.stageDetail}>{option.detail}</span> : null}
    </span>
  );
}
