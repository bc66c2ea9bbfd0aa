// Projects page (/select), spec sections 2, 4, 8, 9.
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { FolderPlus, Plus, RefreshCw } from 'lucide-react';
import type { Project } from '../../../contract/projects';
import { Badge } from '../../components/Badge';
import { Banner } from '../../components/Banner';
import { Button } from '../../components/Button';
import { EmptyState } from '../../components/EmptyState';
import { Page, PageHeader } from '../../components/Page';
import { Skeleton, SkeletonGroup } from '../../components/Skeleton';
import { formatCount, formatTier } from '../../lib/format';
import { projectPath } from '../../lib/links';
import { useSelection } from '../../stores/selection';
import { useSession } from '../../stores/session';
import { useCan, useDenied } from '../../stores/permissions';
import { teamApi } from '../../api/client';
import { CreateProjectDialog } from './CreateProjectDialog';
import { ProjectCard } from './ProjectCard';
import { ProjectSettingsDialog } from '../../components/projects/ProjectSettingsDialog';
import { useProjects } from '../../stores/projectQueries';
import { usePageSize } from './usePageSize';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import styles from './ProjectsPage.module.css';

// Long because it is the page's layout: header, grid, pages and the dialogs it opens, one element each.
export function ProjectsPage() {
  const org = useSession((s) => s.currentOrganization);
  const reactivationMessage = useSession((s) => s.reactivationMessage);
  const clearLocalReactivation = useSession((s) => s.clearReactivationMessage);
  // Dismissing clears the message on the server too, so the next sign-in does not show it again.
  const clearReactivation = () => {
    clearLocalReactivation();
    void teamApi.clearReactivation().catch(() => undefined);
  };
  // Header button: disabled with the reason; a card's settings button only for who may change or
  // delete the project (the rule: src/app/stores/permissions.ts).
  const createDenied = useDenied('project.create', 'create projects');
  const canCreate = !createDenied;
  const canUpdate = useCan('project.update');
  const canDelete = useCan('project.delete');
  const select = useSelection((s) => s.select);
  const navigate = useNavigate();
  const pageSize = usePageSize();
  const [pages, setPages] = useState(1);
  const [creating, setCreating] = useState(false);
  const [settingsFor, setSettingsFor] = useState<Project | null>(null);
  const projects = useProjects(org?.id);
  useDocumentTitle('Projects');

  const open = (project: Project) => {
    select(project);
    navigate(projectPath(project.id, 'data'));
  };

  const list = projects.data ?? [];
  const visible = list.slice(0, pages * pageSize);
  const remaining = list.length - visible.length;

  return (
    <Page>
      <PageHeader
        eyebrow={<span>Projects</span>}
        title={org?.name ?? 'Projects'}
        meta={
          <>
            <Badge tone="accent">{formatTier(org?.subscription_tier)} plan</Badge>
            {projects.data ? <span className="tabular">{formatCount(list.length, 'project')}</span> : null}
          </>
        }
        actions={
          org ? (
            <Button variant="primary" icon={<Plus />} onClick={() => setCreating(true)} disabledReason={createDenied}>
              Create Project
            </Button>
          ) : null
        }
      />

      {reactivationMessage ? (
        <Banner tone="success" title="Account reactivated" onDismiss={clearReactivation} dismissLabel="Dismiss message">
          {reactivationMessage}
        </Banner>
      ) : null}

      {!org ? (
        <EmptyState icon={<FolderPlus />} tone="neutral" title="No organization selected" description="Choose an organization in the sidebar to see its projects." />
      ) : projects.isPending ? (
        <SkeletonGroup className={styles.grid} label="Loading projects">
          {Array.from({ length: Math.min(pageSize, 8) }, (_, i) => (
            <CardSkeleton key={i} />
          ))}
        </SkeletonGroup>
      ) : projects.isError ? (
        <EmptyState
          tone="danger"
          icon={<RefreshCw />}
          title="Failed to load projects"
          description="Something went wrong while loading this organization's projects."
          role="alert"
          action={
            <Button variant="secondary" icon={<RefreshCw />} busy={projects.isFetching} busyLabel="Retrying..." onClick={() => void projects.refetch()}>
              Retry
            </Button>
          }
        />
      ) : list.length === 0 ? (
        <EmptyState
          icon={<FolderPlus />}
          title="No projects yet"
          description={canCreate ? 'Create your first annotation project to get started' : 'Projects appear here once an owner or admin creates them.'}
          action={
            canCreate ? (
              <Button variant="primary" icon={<Plus />} onClick={() => setCreating(true)}>
                Create Your First Project
              </Button>
            ) : undefined
          }
        />
      ) : (
        <>
          <ul className={styles.grid} aria-label="Projects">
            {visible.map((project) => (
              <li key={project.id} className={styles.cell}>
                <ProjectCard project={project} onOpen={() => open(project)} onSettings={org && (canUpdate || canDelete) ? () => setSettingsFor(project) : undefined} />
              </li>
            ))}
          </ul>
          {remaining > 0 ? (
            <div className={styles.more}>
              <span className="tabular">
                Showing {visible.length} of {list.length}
              </span>
              <Button variant="secondary" onClick={() => setPages((p) => p + 1)}>
                Load more
              </Button>
            </div>
          ) : null}
        </>
      )}

      {org ? <CreateProjectDialog open={creating} onOpenChange={setCreating} organizationId={org.id} /> : null}
      <ProjectSettingsDialog project={settingsFor} onClose={() => setSettingsFor(null)} />
    </Page>
  );
}

function CardSkeleton() {
  return (
    <div className={styles.skeletonCard}>
      <Skeleton className={styles.skeletonPreview} />
      <div className={styles.skeletonBody}>
        <Skeleton className={styles.skeletonTitle} />
        <Skeleton className={styles.skeletonLine} />
        <Skeleton className={styles.skeletonBar} />
      </div>
    </div>
  );
}
