// /projects/:projectId/images/:imageId (spec section 2, issue 29). The project and the image come
// from the URL's ids; the query string is the Data view's the image was opened from, so previous /
// next follow the same folder (or search), stage filter, assignee filter and sort, and Back returns
// to that view. A malformed id, an image of another project and anything the member may not read
// show the ordinary not-found page. The editor itself is EditorScreen.
// Previous / next change the route but not the screen: the neighbour is put in the query cache
// before the route changes, so no fetch gates the switch and the same EditorScreen (its Editor, its
// renderer and its worker) opens the next image (issue 19).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ImageOff } from 'lucide-react';
import { useCallback, useMemo, useState } from 'react';
import { useLocation, useNavigate, useParams } from 'react-router-dom';
import type { Image } from '../../../contract/images';
import { Button } from '../../components/Button';
import { EmptyState } from '../../components/EmptyState';
import { FullPageLoading } from '../../components/FullPage';
import { AppShell } from '../../layout/AppShell';
import { NotFoundPage } from '../../layout/NotFoundPage';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { dataQueryString, imagePath, isUuid, parseDataQuery, projectPath } from '../../lib/links';
import { isNotFound, useRoutedProject } from '../../stores/useRoutedProject';
import { editorApi } from '../../api/annotations/editorApi';
import { editorImageKey, useSequenceImages } from './hooks/useSequence';
import { EditorScreen } from './EditorScreen';
import styles from './AnnotatePage.module.css';

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
  const { projectId, imageId = '' } = useParams();
  const { search } = useLocation();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const routed = useRoutedProject(projectId);
  const project = routed.status === 'ready' ? routed.project : null;
  const orgId = routed.status === 'ready' ? routed.orgId : '';
  const validImage = isUuid(imageId);

  const [remount] = useState(remountEachImage);
  const imageQuery = useQuery({
    queryKey: editorImageKey(project?.id, imageId),
    enabled: Boolean(project && validImage),
    // Previous / next put the neighbour here first; it is checked again after a minute.
    staleTime: remount ? 0 : 60_000,
    retry: (n, err) => !isNotFound(err) && n < 2,
    queryFn: async (): Promise<Image | null> => {
      try {
        const img = await editorApi.getImage(imageId, orgId);
        return img.project_id === project!.id ? img : null;
      } catch (err) {
        if (isNotFound(err)) return null;
        throw err;
      }
    },
  });
  const image = imageQuery.data ?? null;
  useDocumentTitle(image?.filename ?? 'Annotate');

  // The Data view the image was opened from; not searching, its folder is the image's own.
  const query = useMemo(() => parseDataQuery(new URLSearchParams(search)), [search]);
  const viewQuery = useMemo(() => (image && !query.search ? { ...query, folderPath: image.virtual_folder_path } : query), [image, query]);
  const sequence = useSequenceImages({ projectId: project?.id, orgId, image, query: viewQuery });

  const goTo = useCallback(
    (img: Image) => {
      if (!remount) qc.setQueryData(editorImageKey(img.project_id, img.id), img);
      // Each image is a step in the history: Back returns to the one before.
      navigate(imagePath(img.project_id, img.id, dataQueryString(viewQuery)));
    },
    [navigate, qc, viewQuery, remount],
  );
  const back = useCallback(() => {
    if (projectId) navigate(projectPath(projectId, 'data', dataQueryString(viewQuery)));
  }, [navigate, projectId, viewQuery]);
  const manageClasses = useCallback(() => {
    if (projectId) navigate(projectPath(projectId, 'classes'));
  }, [navigate, projectId]);

  if (routed.status === 'notFound' || !validImage || (imageQuery.isSuccess && !image)) {
    return (
      <AppShell>
        <NotFoundPage />
      </AppShell>
    );
  }
  if (routed.status === 'error') {
    return <Missing icon={<ImageOff />} title="The project could not be loaded" text="Check your connection and try again." onBack={() => navigate('/select')} back="Back to projects" retry={routed.retry} />;
  }
  if (!project || imageQuery.isPending) return <FullPageLoading text="Loading image..." />;
  if (imageQuery.isError || !image) {
    return <Missing icon={<ImageOff />} title="The image could not be loaded" text="Check your connection and try again." onBack={back} back="Back to project" retry={() => void imageQuery.refetch()} />;
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
