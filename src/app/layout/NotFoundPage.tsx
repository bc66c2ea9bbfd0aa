// The ordinary not-found page (issue 29): an unknown path, a malformed id, something that does not
// exist and something of an organization the member is not in all show this same page, so a link
// reveals nothing about what another organization owns.
import { useNavigate } from 'react-router-dom';
import { FolderKanban, SearchX } from 'lucide-react';
import { Button } from '../components/Button';
import { EmptyState } from '../components/EmptyState';
import { useDocumentTitle } from '../lib/useDocumentTitle';
import styles from './NotFoundPage.module.css';

export const NOT_FOUND_TITLE = 'Page not found';

export function NotFoundPage() {
  const navigate = useNavigate();
  useDocumentTitle(NOT_FOUND_TITLE);
  return (
    <div className={styles.page} data-testid="not-found">
      <EmptyState
        icon={<SearchX />}
        tone="neutral"
        title={NOT_FOUND_TITLE}
        description="This link doesn't lead to anything you can open. It may be mistyped, or what it pointed to is gone or isn't shared with you."
        action={
          <Button variant="primary" icon={<FolderKanban />} onClick={() => navigate('/select')}>
            Go to projects
          </Button>
        }
      />
    </div>
  );
}
