// /projects/:projectId/images/:imageId/merge (issue 36 §3): the reviewer's merge of an overlapped
// image's drafts. This file is the page's frame and its states: loading, an error with the server's
// message, no drafts yet, drafts not all submitted (the layers so far, Merge waits), and the
// workspace (./MergeWorkspace.tsx). Reviewers, admins and owners only, as the server checks.
import { useQuery } from '@tanstack/react-query';
import { ArrowLeft, GitMerge, Layers, RefreshCw, ShieldOff } from 'lucide-react';
import { useMemo } from 'react';
import { Link, useParams } from 'react-router-dom';
import { editorApi } from '../../api/annotations/editorApi';
import { skeletonPointsOf } from '../../../contract/skeleton';
import { consensusApi } from '../../api/consensus';
import { serverMessage } from '../../api/client';
import { Button } from '../../components/Button';
import { Banner } from '../../components/Banner';
import { EmptyState } from '../../components/EmptyState';
import { Page, PageHeader } from '../../components/Page';
import { Skeleton, SkeletonGroup } from '../../components/Skeleton';
import { NotFoundPage } from '../../layout/NotFoundPage';
import { imagePath, projectPath } from '../../lib/links';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { useCan } from '../../stores/permissions';
import { useRoutedProject } from '../../stores/useRoutedProject';
import { agreementText, waitingCount, type PointNames } from './consensus';
import { MergeWorkspace } from './MergeWorkspace';
import styles from './MergePage.module.css';

function Loading() {
  return (
    <SkeletonGroup label="Loading the drafts" className={styles.loading}>
      <Skeleton className={styles.loadingPanel} />
      <Skeleton className={styles.loadingPanel} />
      <Skeleton className={styles.loadingSide} />
    </SkeletonGroup>
  );
}

// Long because each state of the page (loading, refused, failed, empty, waiting, ready) is drawn here, in the frame they share.
export function MergePage() {
  const { projectId, imageId } = useParams();
  const routed = useRoutedProject(projectId);
  const canReview = useCan('images.review');
  const orgId = routed.status === 'ready' ? routed.orgId : undefined;
  const enabled = Boolean(orgId && imageId && canReview);
  const image = useQuery({ queryKey: ['image', imageId, orgId], queryFn: () => editorApi.getImage(imageId!, orgId!), enabled });
  const url = useQuery({ queryKey: ['image-url', imageId, orgId], queryFn: () => editorApi.originalUrl(imageId!, orgId!), enabled, staleTime: 30 * 60_000 });
  const drafts = useQuery({ queryKey: ['drafts', imageId], queryFn: ({ signal }) => consensusApi.drafts(imageId!, signal), enabled, staleTime: 0 });
  const colors = useMemo(() => new Map(routed.status === 'ready' ? routed.project.classes.map((c) => [c.name, c.color]) : []), [routed]);
  const pointNames = useMemo<PointNames>(() => {
    const byName = new Map(routed.status === 'ready' ? routed.project.classes.map((c) => [c.name, c]) : []);
    return (name) => skeletonPointsOf(byName.get(name));
  }, [routed]);
  useDocumentTitle(image.data ? `Merge ${image.data.filename}` : 'Merge drafts');

  if (routed.status === 'notFound') return <NotFoundPage />;
  const back = projectId && imageId ? imagePath(projectId, imageId) : '/select';
  const overlap = image.data?.overlap ?? 0;
  const waiting = drafts.data ? waitingCount(overlap, drafts.data.drafts) : 0;
  const retry = () => {
    void image.refetch();
    void url.refetch();
    void drafts.refetch();
  };
  const failure = routed.status === 'error' ? new Error("The project didn't load.") : (image.error ?? drafts.error);

  let body;
  if (routed.status === 'ready' && !canReview) {
    body = <EmptyState icon={<ShieldOff />} title="Only reviewers merge drafts" description="Reviewers, admins and owners merge the annotators' drafts of an image. Ask one of them." />;
  } else if (failure) {
    body = (
      <EmptyState
        tone="danger"
        role="alert"
        icon={<RefreshCw />}
        title="The drafts didn't load"
        description={serverMessage(failure, 'Something went wrong. Please try again.')}
        action={
          <Button variant="primary" onClick={routed.status === 'error' ? routed.retry : retry}>
            Try again
          </Button>
        }
      />
    );
  } else if (!image.data || !drafts.data) {
    body = <Loading />;
  } else if (drafts.data.drafts.length === 0) {
    body = (
      <EmptyState
        icon={<Layers />}
        title="No drafts yet"
        description={`This image goes to ${overlap} annotators; none has started on it. Their layers appear here as they work, and you can merge once all ${overlap} have submitted.`}
        action={
          <Link className={styles.linkButton} to={back}>
            Open in the editor
          </Link>
        }
      />
    );
  } else {
    body = (
      <>
        {waiting > 0 ? (
          <Banner tone="warning" title={`Waiting for ${waiting} more ${waiting === 1 ? 'annotator' : 'annotators'}`}>
            {`${overlap - waiting} of ${overlap} have submitted. The layers below are what they have so far; you can merge once all have submitted.`}
          </Banner>
        ) : null}
        <MergeWorkspace projectId={projectId!} image={image.data} imageUrl={url.data ?? null} drafts={drafts.data.drafts} colors={colors} pointNames={pointNames} waitingFor={waiting} />
      </>
    );
  }

  return (
    <Page label="Merge drafts">
      <PageHeader
        eyebrow={
          <Link className={styles.back} to={back}>
            <ArrowLeft aria-hidden="true" />
            Back to the image
          </Link>
        }
        title={
          <span className={styles.title}>
            <GitMerge aria-hidden="true" />
            {image.data ? `Merge ${image.data.filename}` : 'Merge drafts'}
          </span>
        }
        meta={
          drafts.data && image.data ? (
            <span className={`${styles.agreement} tabular`} data-testid="merge-agreement" data-waiting={!drafts.data.agreement || undefined}>
              {agreementText(drafts.data.agreement, waiting)}
            </span>
          ) : null
        }
        actions={
          projectId ? (
            <Link className={styles.linkButton} to={projectPath(projectId)}>
              Project data
            </Link>
          ) : null
        }
      />
      {body}
    </Page>
  );
}
