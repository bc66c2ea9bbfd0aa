// The Data tab's folder path: Back, then 'All images' and each folder down to the one on screen.
// During a search: 'All images' and the search (it looks through every folder); Back leaves the
// search for the folder that was open, 'All images' for the root. An assignee filter (My work) also
// looks through every folder: 'All images' and whose images they are; Back leaves the filter. So do
// the annotation filters (class, annotated or not, a count range): 'All images' and a removable chip
// for each; Back leaves them all.
import { ArrowLeft, ChevronRight, Folder, Home, Search, UserRound } from 'lucide-react';
import { ROOT_PATH, parentFolderPath } from '../../../../contract/folders';
import { IconButton } from '../../../components/Button';
import { hasAnnotationFilter, NO_ANNOTATION_FILTER, type AnnotationFilter } from '../../../lib/links';
import { AnnotationFilterChips } from './ClassPanel';
import { useDataView } from '../../../stores/dataView';
import styles from './DataTab.module.css';

/** Whose images an assignee filter shows, as the path bar names it. */
function assigneeText(assignee: string): string {
  if (assignee === 'me') return 'My work in all folders';
  if (assignee === 'none') return 'Unassigned images in all folders';
  return "A member's images in all folders";
}

export function FolderPath({ folderPath, search, assignee = null, annotations = NO_ANNOTATION_FILTER }: { folderPath: string; search: string; assignee?: string | null; annotations?: AnnotationFilter }) {
  const view = useDataView.getState;
  const annotationFiltered = hasAnnotationFilter(annotations);
  const filtered = search !== '' || assignee !== null || annotationFiltered;
  const crumbs = folderPath === ROOT_PATH || filtered ? [] : folderPath.slice(1).split('/');
  const leave = () =>
    search
      ? view().setSearch('')
      : assignee !== null
        ? view().setAssignee(null)
        : annotationFiltered
          ? view().setAnnotationFilter(NO_ANNOTATION_FILTER)
          : view().openFolder(parentFolderPath(folderPath));
  return (
    <nav className={styles.pathBar} aria-label="Folder path">
      <IconButton
        label="Back"
        icon={<ArrowLeft />}
        disabled={folderPath === ROOT_PATH && !filtered}
        onClick={leave}
      />
      <ol className={styles.path}>
        <li>
          <button type="button" className={styles.pathLink} onClick={() => view().openFolder(ROOT_PATH)} aria-current={folderPath === ROOT_PATH && !filtered ? 'page' : undefined}>
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
        ) : assignee !== null ? (
          <li>
            <ChevronRight aria-hidden="true" className={styles.pathSep} />
            <span className={`${styles.pathLink} ${styles.pathSearch}`} aria-current="page">
              <UserRound aria-hidden="true" />
              <span className={styles.pathSearchText}>{assigneeText(assignee)}</span>
            </span>
          </li>
        ) : null}
        {annotationFiltered ? (
          <li className={styles.pathChips}>
            <ChevronRight aria-hidden="true" className={styles.pathSep} />
            <span className={styles.pathSearchText}>{search || assignee !== null ? 'with' : 'In all folders, with'}</span>
            <AnnotationFilterChips filter={annotations} />
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
