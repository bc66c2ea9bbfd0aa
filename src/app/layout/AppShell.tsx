import { useSyncExternalStore, type ReactNode } from 'react';
import { Outlet } from 'react-router-dom';
import { Banner } from '../components/Banner';
import { Sidebar } from './Sidebar';
import styles from './AppShell.module.css';

const onConnectionChange = (cb: () => void) => {
  window.addEventListener('online', cb);
  window.addEventListener('offline', cb);
  return () => {
    window.removeEventListener('online', cb);
    window.removeEventListener('offline', cb);
  };
};

/** Whether the browser has a network connection (its `online` and `offline` events). */
function useOnline(): boolean {
  return useSyncExternalStore(onConnectionChange, () => navigator.onLine, () => true);
}

/**
 * The sidebar and the main area: the matched route's page, or `children` (a page outside the
 * shell's routes, such as the editor's not-found). Offline, a banner says so above the page: lists
 * and thumbnails there stop loading without a word otherwise (the editor has its own save state).
 */
export function AppShell({ children }: { children?: ReactNode }) {
  const online = useOnline();
  return (
    <div className={styles.shell}>
      <Sidebar />
      <main className={styles.main} id="main">
        {online ? null : (
          <Banner tone="warning" title="You are offline" className={styles.offline}>
            What is shown may be out of date, and changes made here fail until the connection is back.
          </Banner>
        )}
        {children ?? <Outlet />}
      </main>
    </div>
  );
}
