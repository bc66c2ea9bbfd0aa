// The Data tab's folder path: Back, then 'All images' and each folder down to the one on screen.
// During a search: 'All images' and the search (it looks through every folder); Back leaves the
// search for the folder that was open, 'All images' for the root.
import { ArrowLeft, ChevronRight, Folder, Home, Search } from 'lucide-react';
import { ROOT_PATH, parentFolderPath } from '../../../../contract/folders';
import { IconButton } from '../../../components/Button';
import { useDataView } from './dataView';
import styles from './DataTab.module.css';

export function FolderPath({ folderPath, search }: { folderPath: string; search: string }) {
  const view = useDataView.getState;
  const crumbs = folderPath === ROOT_PATH || search ? [] : folderPath.slice(1).split('/');
  return (
    <nav className={styles.pathBar} aria-label="Folder path">
      <IconButton
        label="Back"
        icon={<ArrowLeft />}
        disabled={folderPath === ROOT_PATH && !search}
        onClick={() => (search ? view().setSearch('') : view().openFolder(parentFolderPath(folderPath)))}
      />
      <ol className={styles.path}>
        <li>
          <button type="button" className={styles.pathLink} onClick={() => view().openFolder(ROOT_PATH)} aria-current={folderPath === ROOT_PATH && !search ? 'page' : undefined}>
            <Home aria-hidden="true" />
            All images
          </button>
        </li>
        {search ? (
          <li>
            <ChevronRight aria-hidden="true" className={styles.pathSep} />
            <span className={`${styles.pathLink} ${styles.pathSearch}`} aria-current="page">
              <Search aria-hidden="true" />
              <span className={styles.pathSearchText}>Names containing “{search}” in all folders</span>
            </span>
          </li>
        ) : null}
        {crumbs.map((name, i) => {
          const path = `/${crumbs.slice(0, i + 1).join('/')}`;
          return (
            <li key={path}>
              <ChevronRight aria-hidden="true" className={styles.pathSep} />
              <button type="button" className={styles.pathLink} onClick={() => view().openFolder(path)} aria-current={path === folderPath ? 'page' : undefined}>
                <Folder aria-hidden="true" />
                {name}
              </button>
            </li>
          );
        })}
      </ol>
    </nav>
  );
}
