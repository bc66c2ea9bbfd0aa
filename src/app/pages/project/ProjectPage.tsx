// Project page (/project), spec section 2. The header is real; the Data, Archive and Classes tabs
// get their tools in the next issue, so their panels say so plainly.
import { useEffect, useRef, useState } from 'react';
import { Link, Navigate, useLocation, useNavigate } from 'react-router-dom';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ChevronRight, Download, HardDrive, Images, Plus, Settings2 } from 'lucide-react';
import { ROOT_PATH, parentFolderPath } from '../../../contract/folders';
import { api, isApiError } from '../../api/client';
import { Button, IconButton } from '../../components/Button';
import { Page, PageHeader } from '../../components/Page';
import { formatBytes, formatCount } from '../../lib/format';
import { useSelection } from '../../stores/selection';
import { useSession } from '../../stores/session';
import { toast } from '../../stores/toast';
import { deniedReason, useCan, useDenied, useRoleLabel } from '../../stores/permissions';
import { projectKey } from '../projects/queries';
import { ProjectSettingsDialog } from '../projects/ProjectSettingsDialog';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { ClassesTab } from './ClassesTab';
import { ArchiveTab } from './data/ArchiveTab';
import { AlertHost } from './data/Chrome';
import { DataTab, foldersKey } from './data/DataTab';
import { useDataView } from './data/dataView';
import { useExportDialog } from './data/ExportDialog';
import { ImportButton } from './data/ImportDialog';
import { UploadPanel } from './data/UploadPanel';
import { ACCEPT_ATTR, useUploads } from './data/uploads';
import { ProjectTabs, type Tab } from './ProjectTabs';
import styles from './ProjectPage.module.css';


export function ProjectPage() {
  // Header buttons stay in place, disabled with the reason (the rule: src/app/stores/permissions.ts).
  const uploadDenied = useDenied('images.upload', 'upload images');
  const roleLabel = useRoleLabel();
  const canUpdate = useCan('project.update');
  const canDelete = useCan('project.delete');
  const settingsDenied = canUpdate || canDelete ? null : deniedReason(roleLabel, 'change project settings');
  const selected = useSelection((s) => s.project);
  const updateSelection = useSelection((s) => s.update);
  const clearSelection = useSelection((s) => s.clear);
  const org = useSession((s) => s.currentOrganization);
  const navigate = useNavigate();
  const location = useLocation();
  // The editor's 'Manage Classes' opens the Classes tab.
  const [tab, setTab] = useState<Tab>(() => ((location.state as { tab?: Tab } | null)?.tab === 'classes' ? 'classes' : 'data'));
  const qc = useQueryClient();
  const fileInput = useRef<HTMLInputElement>(null);
  const selectedCount = useDataView((s) => s.selected.size);
  // The Data and Archive tabs wait until the shared view belongs to this project (no stale folder).
  const viewProjectId = useDataView((s) => s.projectId);
  const uploading = useUploads((s) => s.active);

  // A new project starts at the root; returning from the editor re-opens the image's folder
  // (returnFromImage holds the name including its folder path), else the root; during a name search
  // the search results.
  const returnFromImage = (location.state as { returnFromImage?: string } | null)?.returnFromImage ?? null;
  const projectId = selected?.id ?? null;
  useEffect(() => {
    if (!projectId) return;
    useDataView.getState().reset(projectId);
    if (returnFromImage !== null) {
      // Back from an image opened from search results: the results again (the search is kept).
      if (!useDataView.getState().search) useDataView.getState().openFolder(returnFromImage.startsWith('/') ? parentFolderPath(returnFromImage) : ROOT_PATH);
      navigate('.', { replace: true, state: null });
    }
  }, [projectId, returnFromImage, navigate]);
  useDocumentTitle(selected?.name ?? 'Project');
  const [settingsOpen, setSettingsOpen] = useState(false);

  const query = useQuery({
    queryKey: projectKey(selected?.id),
    queryFn: async () => (await api.getProject(selected!.id)).project,
    enabled: Boolean(selected),
    placeholderData: selected ?? undefined,
  });

  useEffect(() => {
    if (query.data && !query.isPlaceholderData) updateSelection(query.data);
  }, [query.data, query.isPlaceholderData, updateSelection]);

  const gone = query.isError && isApiError(query.error) && (query.error.status === 404 || query.error.status === 403);
  useEffect(() => {
    if (gone) {
      clearSelection();
      toast('That project is no longer available', 'danger');
    }
  }, [gone, clearSelection]);

  if (!selected || gone) return <Navigate to="/select" replace />;
  if (org && selected.organization_id !== org.id) {
    // The selected project belongs to another organization than the current one.
    return <Navigate to="/select" replace />;
  }

  const project = query.data ?? selected;
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
  const chooseTab = (next: Tab) => {
    if (next !== tab) useDataView.getState().clearSelection();
    setTab(next);
  };
  const counts: Record<Tab, number> = { data: project.image_count, archive: project.archived_images, classes: project.classes.length };

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

      <ProjectTabs tab={tab} counts={counts} onChoose={chooseTab} />

      <section role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} className={styles.panel}>
        {tab === 'data' && viewProjectId === project.id ? <DataTab project={project} orgId={project.organization_id} onUpload={startUpload} /> : null}
        {tab === 'archive' && viewProjectId === project.id ? <ArchiveTab project={project} orgId={project.organization_id} /> : null}
        {tab === 'classes' ? <ClassesTab project={project} /> : null}
      </section>

      <UploadPanel />
      <AlertHost />
      <ProjectSettingsDialog project={settingsOpen ? project : null} onClose={() => setSettingsOpen(false)} onDeleted={() => navigate('/select')} />
    </Page>
  );
}
