import type { ReactNode } from 'react';
import { LogoMark } from './Logo';
import { Spinner } from './Spinner';
import styles from './FullPage.module.css';

/** The screen shown while the authentication state loads (spec section 2: 'Loading...'). */
export function FullPageLoading({ text = 'Loading...' }: { text?: string }) {
  return (
    <main className={styles.page} aria-busy="true">
      <LogoMark />
      <span className={styles.loading} role="status">
        <Spinner size="sm" />
        {text}
      </span>
    </main>
  );
}

export function FullPageMessage({ children }: { children: ReactNode }) {
  return (
    <main className={styles.page}>
      <div className={styles.card}>{children}</div>
    </main>
  );
}
