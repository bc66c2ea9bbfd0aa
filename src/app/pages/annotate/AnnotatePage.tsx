// /project/annotate/:imageName (spec section 2). Finds the project, its organization and the image
// (from the Data tab's navigation state, or by name after a reload), and the folder's images in
// the Data tab's order for previous / next; the editor itself is EditorScreen.
// Previous / next change the route but not the screen: the Image travels in the navigation state
// and is the query's data at once, so no fetch gates the switch and the same EditorScreen (its
// Editor, its renderer and its worker) opens the next image (issue 19).
import { useQuery } from '@tanstack/react-query';
import { ImageOff, Building2 } from 'lucide-react';
import { useCallback, useState } from 'react';
import { Navigate, useLocation, useNavigate, useParams } from 'react-router-dom';
import { joinFolderPath } from '../../../contract/folders';
import type { Image } from '../../../contract/images';
import { api, isApiError } from '../../api/client';
import { Button } from '../../components/Button';
import { EmptyState } from '../../components/EmptyState';
import { FullPageLoading } from '../../components/FullPage';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { useSelection } from '../../stores/selection';
import { useSession } from '../../stores/session';
import { useDataView } from '../project/data/dataView';
import { projectKey } from '../projects/queries';
import { editorApi } from './api';
import { EditorScreen } from './EditorScreen';
import styles from './AnnotatePage.module.css';

interface NavState {
  imageId?: string;
  folderPath?: string;
  /** The image itself (previous / next: the sequence's copy). */
  image?: Image;
}

/**
 * The benchmark's baseline (bench/editor-switch.bench.ts): set in localStorage, the editor is
 * rebuilt for every image as it was before issue 19 (a fetch behind 'Loading image...', then a
 * new screen, renderer and worker).
 */
export const REMOUNT_FLAG = 'vellum.bench.editorRemount';
const remountEachImage = () => {
  try {
    return localStorage.getItem(REMOUNT_FLAG) === '1';
  } catch {
    return false;
  }
};

export function AnnotatePage() {
  const selected = useSelection((s) => s.project);
  const organizations = useSession((s) => s.organizations);
  const profileStatus = useSession((s) => s.profileStatus);
  const { imageName = '' } = useParams();
  const navigate = useNavigate();
  const location = useLocation();
  const state = (location.state as NavState | null) ?? {};
  useDocumentTitle(imageName || 'Annotate');

  const orgId = selected?.organization_id ?? '';
  const organization = organizations.find((o) => o.id === orgId);

  const projectQuery = useQuery({
    queryKey: projectKey(selected?.id),
    queryFn: async () => (await api.getProject(selected!.id)).project,
    enabled: Boolean(selected),
    placeholderData: selected ?? undefined,
  });
  const project = projectQuery.data ?? selected;

  const [remount] = useState(remountEachImage);
  const carried = !remount && state.image && state.image.filename === imageName && state.image.project_id === selected?.id ? state.image : undefined;
  const imageQuery = useQuery({
    queryKey: ['editor-image', selected?.id, imageName, state.imageId ?? null],
    enabled: Boolean(selected && organization),
    // The sequence's copy is shown at once (and checked again in the background after a minute).
    initialData: carried,
    staleTime: carried ? 60_000 : 0,
    retry: (n, err) => !(isApiError(err) && err.status < 500) && n < 2,
    queryFn: async (): Promise<Image | null> => {
      if (state.imageId) {
        try {
          const img = await editorApi.getImage(state.imageId, orgId);
          if (img.project_id === selected!.id && img.filename === imageName) return img;
        } catch (err) {
          if (!(isApiError(err) && err.status === 404)) throw err;
        }
      }
      const found = await editorApi.findByFilename(selected!.id, orgId, imageName);
      return found.find((i) => !i.is_archived) ?? found[0] ?? null;
    },
  });
  const image = imageQuery.data ?? null;

  // Previous / next follow the folder the image is in, sorted and filtered as the Data tab was.
  const sort = useDataView((s) => s.sort);
  const status = useDataView((s) => (s.projectId === selected?.id ? s.status : null));
  const folderPath = image?.virtual_folder_path ?? state.folderPath ?? '/';
  const sequenceQuery = useQuery({
    queryKey: ['editor-sequence', selected?.id, folderPath, sort.field, sort.order, status],
    enabled: Boolean(selected && organization && image),
    queryFn: () => editorApi.listFolder(selected!.id, orgId, folderPath, sort, status),
    staleTime: 60_000,
  });
  // An image filtered out by status is still reachable: show it alone in its sequence.
  const sequence = sequenceQuery.data && image && !sequenceQuery.data.some((i) => i.id === image.id) ? undefined : sequenceQuery.data;

  const goTo = useCallback(
    (img: Image) => navigate(`/project/annotate/${encodeURIComponent(img.filename)}`, { replace: true, state: { imageId: img.id, folderPath: img.virtual_folder_path, image: img } satisfies NavState }),
    [navigate],
  );
  const back = useCallback(() => {
    const name = image ? joinFolderPath(image.virtual_folder_path, image.filename) : state.folderPath ? joinFolderPath(state.folderPath, imageName) : imageName;
    navigate('/project', { state: { returnFromImage: name } });
  }, [navigate, image, state.folderPath, imageName]);
  const manageClasses = useCallback(() => navigate('/project', { state: { tab: 'classes' } }), [navigate]);

  if (!selected) return <Navigate to="/select" replace />;
  if (profileStatus === 'ready' && !organization) {
    return <Missing icon={<Building2 />} title="Organization not found" text="This project's organization is not one of yours any more." onBack={() => navigate('/select')} back="Back to projects" />;
  }
  if (!project || imageQuery.isPending || !organization) return <FullPageLoading text="Loading image..." />;
  if (imageQuery.isError) {
    return <Missing icon={<ImageOff />} title="The image could not be loaded" text="Check your connection and try again." onBack={back} back="Back to project" retry={() => void imageQuery.refetch()} />;
  }
  if (!image) {
    return <Missing icon={<ImageOff />} title="Image not found" text={`There is no image called '${imageName}' in ${project.name}.`} onBack={back} back="Back to project" />;
  }
  return <EditorScreen key={remount ? image.id : undefined} project={project} orgId={orgId} image={image} sequence={sequence} onNavigate={goTo} onBack={back} onManageClasses={manageClasses} />;
}

function Missing({ icon, title, text, onBack, back, retry }: { icon: React.ReactNode; title: string; text: string; onBack(): void; back: string; retry?(): void }) {
  return (
    <div className={styles.missing}>
      <EmptyState
        icon={icon}
        title={title}
        description={text}
        tone="neutral"
        action={
          <div className={styles.missingActions}>
            {retry ? (
              <Button variant="primary" onClick={retry}>
                Try again
              </Button>
            ) : null}
            <Button variant={retry ? 'secondary' : 'primary'} onClick={onBack}>
              {back}
            </Button>
          </div>
        }
      />
    </div>
  );
}
