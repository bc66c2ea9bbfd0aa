import { initials } from '../lib/format';
import styles from './Avatar.module.css';

export function Avatar({ name, square = false, className }: { name: string | null | undefined; square?: boolean; className?: string }) {
  return (
    <span className={[styles.avatar, square && styles.square, className].filter(Boolean).join(' ')} aria-hidden="true">
      {initials(name)}
    </span>
  );
}
