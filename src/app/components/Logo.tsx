import styles from './Logo.module.css';

export function LogoMark({ className, inverse = false }: { className?: string; inverse?: boolean }) {
  const tile = inverse ? 'var(--color-surface)' : 'var(--color-accent)';
  const stroke = inverse ? 'var(--color-accent)' : 'var(--color-text-inverse)';
  return (
    <svg className={[styles.mark, className].filter(Boolean).join(' ')} viewBox="0 0 32 32" aria-hidden="true">
      <rect width="32" height="32" rx="8" fill={tile} />
      <path d="M9 9l7 15 7-15" fill="none" stroke={stroke} strokeWidth="3" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}

export function Logo({ size = 'md', inverse = false, showWord = true }: { size?: 'sm' | 'md'; inverse?: boolean; showWord?: boolean }) {
  return (
    <span className={[styles.logo, size === 'sm' && styles.sm, inverse && styles.inverse].filter(Boolean).join(' ')}>
      <LogoMark inverse={inverse} />
      {showWord ? <span className={styles.word}>Vellum</span> : <span className="visually-hidden">Vellum</span>}
    </span>
  );
}
