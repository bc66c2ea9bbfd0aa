import type { ReactNode } from 'react';
import { Outlet } from 'react-router-dom';
import { Sidebar } from './Sidebar';
import styles from './AppShell.module.css';

/** The sidebar and the main area: the matched route's page, or `children` (a page outside the shell's routes, such as the editor's not-found). */
export function AppShell({ children }: { children?: ReactNode }) {
  return (
    <div className={styles.shell}>
      <Sidebar />
      <main className={styles.main} id="main">
        {children ?? <Outlet />}
      </main>
    </div>
  );
}
