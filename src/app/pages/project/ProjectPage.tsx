// Project page (/projects/:projectId/data, /archive, /classes, /analytics; spec section 2, issue 29). The
// project comes from the URL's id (useRoutedProject); the tab is the path's last part; the Data
// view's folder, filter, search, sort and assignee live in its query string (useDataViewUrl).
import { Suspense, lazy, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router-dom';
import { useQueryClient } from '@tanstack/react-query';
import { ChevronRight, Download, HardDrive, Images, Plus, RefreshCw, Settings2 } from 'lucide-react';
import type { Project } from '../../../contract/projects';
import { Button, IconButton } from '../../components/Button';
import { EmptyState } from '../../components/EmptyState';
import { Page, PageHeader } from '../../components/Page';
import { Spinner } from '../../components/Spinner';
import { formatBytes, formatCount } from '../../lib/format';
import { DEFAULT_DATA_QUERY, PROJECT_TABS, dataQueryString, parseDataQuery, projectPath, type ProjectTab } from '../../lib/links';
import { useSession } from '../../stores/session';
import { deniedReason, useCan, useDenied, useRoleLabel } from '../../stores/permissions';
import { projectKey } from '../../stores/projectQueries';
import { useRoutedProject } from '../../stores/useRoutedProject';
import { ProjectSettingsDialog } from '../../components/projects/ProjectSettingsDialog';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { NotFoundPage } from '../../layout/NotFoundPage';
import { ClassesTab } from './ClassesTab';
import { ArchiveTab } from './data/ArchiveTab';
import { AlertHost } from './data/Chrome';
import { DataTab, foldersKey } from './data/DataTab';
import { bindQueryWriter, useDataView } from '../../stores/dataView';
import { useExportDialog } from './data/ExportDialog';
import { ImportButton } from './data/ImportDialog';
import { UploadPanel } from './data/UploadPanel';
import { ACCEPT_ATTR, useUploads } from './data/uploads';
import { ProjectTabs } from './ProjectTabs';
import styles from './ProjectPage.module.css';

// The Analytics tab and its chart library load with the tab (issue 36).
const AnalyticsTab = lazy(() => import('./analytics/AnalyticsTab'));

export function ProjectPage() {
  const { projectId, tab } = useParams();
  const routed = useRoutedProject(projectId);
  const known = PROJECT_TABS.includes(tab as ProjectTab);
  if (!known || routed.status === 'notFound') return <NotFoundPage />;
  if (routed.status === 'error') {
    return (
      <Page>
        <EmptyState
          tone="danger"
          icon={<RefreshCw />}
          title="The project could not be loaded"
          description="Check your connection and try again."
          role="alert"
          action={
            <Button variant="primary" onClick={routed.retry}>
              Try again
            </Button>
          }
        />
      </Page>
    );
  }
  if (routed.status === 'loading') return <ProjectLoading />;
  return <ProjectView project={routed.project} tab={tab as ProjectTab} />;
}

/** As the page's chunk loading (lazyRoutes.ts), so nothing moves when the project arrives. */
function ProjectLoading() {
  useDocumentTitle('Project');
  return (
    <div className={styles.loadingPane} aria-busy="true">
      <span className={styles.loading} role="status">
        <Spinner size="sm" />
        Loading project...
      </span>
    </div>
  );
}

/**
 * The URL's query is the Data view's truth: it is applied to the shared view (before the grid
 * loads), and the view's choices are written back to it. Other tabs keep the view as it was, so
 * the Data tab's link returns to it.
 */
function useDataViewUrl(projectId: string, tab: ProjectTab) {
  const { search } = useLocation();
  const navigate = useNavigate();
  useLayoutEffect(() => {
    const view = useDataView.getState();
    if (tab === 'data') view.applyQuery(projectId, parseDataQuery(new URLSearchParams(search)));
    else if (view.projectId !== projectId) view.applyQuery(projectId, DEFAULT_DATA_QUERY);
  }, [projectId, tab, search]);
  useEffect(() => {
    if (tab !== 'data') return;
    return bindQueryWriter((query, mode) => navigate(projectPath(projectId, 'data', dataQueryString(query)), { replace: mode === 'replace' }));
  }, [projectId, tab, navigate]);
}

// Long because it is the project's layout: header, tabs and each tab's panel, one element each.
function ProjectView({ project, tab }: { project: Project; tab: ProjectTab }) {
  // Header buttons stay in place, disabled with the reason (the rule: src/app/stores/permissions.ts).
  const uploadDenied = useDenied('images.upload', 'upload images');
  const roleLabel = useRoleLabel();
  const canUpdate = useCan('project.update');
  const canDelete = useCan('project.delete');
  const settingsDenied = canUpdate || canDelete ? null : deniedReason(roleLabel, 'change project settings');
  const org = useSession((s) => s.currentOrganization);
  const navigate = useNavigate();
  const qc = useQueryClient();
  const fileInput = useRef<HTMLInputElement>(null);
  const selectedCount = useDataView((s) => s.selected.size);
  // The Data and Archive tabs wait until the shared view belongs to this project (no stale folder).
  const viewProjectId = useDataView((s) => s.projectId);
  const uploading = useUploads((s) => s.active);
  useDataViewUrl(project.id, tab);
  useDocumentTitle(project.name);
  const [settingsOpen, setSettingsOpen] = useState(false);
  // Another tab starts with nothing selected.
  useEffect(() => () => useDataView.getState().clearSelection(), [tab]);

  const startUpload = (files: File[]) => {
    if (!files.length) return;
    useUploads.getState().start({
      projectId: project.id,
      orgId: project.organization_id,
      folderPath: useDataView.getState().folderPath,
      files,
      onProgress: () => {
        useDataView.getState().reload();
        void qc.invalidateQueries({ queryKey: foldersKey(project.id) });
        void qc.invalidateQueries({ queryKey: projectKey(project.id) });
      },
    });
  };
  const chooseTab = (next: ProjectTab) => {
    if (next === tab) return;
    // The Data tab comes back to the view it showed (the shared view keeps it meanwhile).
    navigate(projectPath(project.id, next, next === 'data' ? dataQueryString(useDataView.getState()) : ''));
  };
  const counts: Partial<Record<ProjectTab, number>> = { data: project.image_count, archive: project.archived_images, classes: project.classes.length };
  // Viewers do no annotation work: the analytics answer them 403 (docs/analytics.md).
  const canAnalytics = useCan('annotations.write');

  return (
    <Page>
      <PageHeader
        eyebrow={
          <nav aria-label="Breadcrumb" className={styles.crumbs}>
            <Link to="/select">Projects</Link>
            <ChevronRight aria-hidden="true" />
            <span aria-current="page">{project.name}</span>
          </nav>
        }
        title={project.name}
        meta={
          <>
            <span className={`${styles.stat} tabular`}>
              <Images aria-hidden="true" />
              {formatCount(project.image_count, 'image')}
            </span>
            <span className={styles.sep} aria-hidden="true" />
            <span className={`${styles.stat} tabular`}>
              <HardDrive aria-hidden="true" />
              {formatBytes(project.total_size)}
            </span>
            {project.description ? (
              <>
                <span className={styles.sep} aria-hidden="true" />
                <span className={styles.description}>{project.description}</span>
              </>
            ) : null}
          </>
        }
        actions={
          <>
            {org ? <IconButton variant="secondary" size="md" label="Project settings" icon={<Settings2 />} onClick={() => setSettingsOpen(true)} disabledReason={settingsDenied} /> : null}
            <Button
              variant="secondary"
              icon={<Download />}
              onClick={() => {
                // The one Export entry point (spec: the header's Export, with the selected count). The
                // dialog lives with the Data tab's selection and filters and offers every scope.
                chooseTab('data');
                useExportDialog.getState().show();
              }}
            >
              Export <span className="tabular">({selectedCount})</span>
            </Button>
            <ImportButton project={project} />
            <Button variant="primary" icon={<Plus />} onClick={() => fileInput.current?.click()} disabled={uploading} disabledReason={uploadDenied}>
              Add
            </Button>
            <input
              ref={fileInput}
              type="file"
              multiple
              accept={ACCEPT_ATTR}
              hidden
              aria-label="Add images"
              data-testid="add-images-input"
              onChange={(e) => {
                startUpload(Array.from(e.target.files ?? []));
                e.target.value = '';
              }}
            />
          </>
        }
      />

      <ProjectTabs tab={tab} counts={counts} hidden={canAnalytics ? [] : ['analytics']} onChoose={chooseTab} />

      <section role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} className={styles.panel}>
        {tab === 'data' && viewProjectId === project.id ? <DataTab project={project} orgId={project.organization_id} onUpload={startUpload} /> : null}
        {tab === 'archive' && viewProjectId === project.id ? <ArchiveTab project={project} orgId={project.organization_id} /> : null}
        {tab === 'classes' ? <ClassesTab project={project} /> : null}
        {tab === 'analytics' ? (
          <Suspense fallback={<Spinner size="sm" label="Loading analytics" />}>
            <AnalyticsTab project={project} />
          </Suspense>
        ) : null}
      </section>

      <UploadPanel />
      <AlertHost />
      <ProjectSettingsDialog project={settingsOpen ? project : null} onClose={() => setSettingsOpen(false)} onDeleted={() => navigate('/select', { replace: true })} />
    </Page>
  );
}
