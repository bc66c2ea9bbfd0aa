// The Data tab's work queue controls (issue 29): "My work" (the images assigned to the member:
// assignee=me in the URL), "Start working" (opens the member's next image to annotate, POST
// /projects/{id}/queue/next) and, for reviewers, "Review next" (the next image waiting for their
// review). An annotator's Data tab opens on My work the first time it is opened in a session
// without a view of its own in the URL.
import { ClipboardCheck, Play, UserRound } from 'lucide-react';
import { useEffect, useState } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { roleCan } from '../../../../contract/permissions';
import type { QueueRole } from '../../../../contract/workflow';
import { serverMessage } from '../../../api/client';
import { workflowApi } from '../../../api/workflow';
import { Button } from '../../../components/Button';
import { DEFAULT_DATA_QUERY, dataQueryString, imagePath } from '../../../lib/links';
import { useSession } from '../../../stores/session';
import { toast } from '../../../stores/toast';
import { useDataView } from '../../../stores/dataView';

/** Projects whose Data tab already opened in this session (an annotator's lands on My work once). */
const openedOnce = new Set<string>();

/** The Data view the editor keeps for a queue's images: previous / next walk the same queue. */
const QUEUE_VIEW: Record<QueueRole, string> = {
  annotate: dataQueryString({ ...DEFAULT_DATA_QUERY, assignee: 'me' }),
  review: dataQueryString({ ...DEFAULT_DATA_QUERY, status: 'review' }),
};

export function WorkControls() {
  const projectId = useDataView((s) => s.projectId);
  const assignee = useDataView((s) => s.assignee);
  const role = useSession((s) => s.currentOrganization?.user_role ?? null);
  const orgId = useSession((s) => s.currentOrganization?.id);
  const navigate = useNavigate();
  const { search } = useLocation();
  const [busy, setBusy] = useState<QueueRole | null>(null);
  const canAnnotate = Boolean(role && roleCan(role, 'annotations.write'));
  const canReview = Boolean(role && roleCan(role, 'images.review'));

  useEffect(() => {
    if (!projectId || openedOnce.has(projectId)) return;
    openedOnce.add(projectId);
    if (role === 'annotator' && !search) navigate({ search: QUEUE_VIEW.annotate }, { replace: true });
  }, [projectId, role, search, navigate]);

  if (!projectId || !canAnnotate) return null;
  const mine = assignee === 'me';
  const start = async (queue: QueueRole) => {
    setBusy(queue);
    try {
      const next = await workflowApi.queueNext(projectId, queue, orgId);
      if (next) navigate(imagePath(projectId, next.id, QUEUE_VIEW[queue]));
      else toast(queue === 'review' ? 'Nothing left in your queue: no image waits for your review.' : 'Nothing left in your queue: no image is assigned to you or waiting to be started.', 'success', 5000);
    } catch (err) {
      toast(serverMessage(err, "Couldn't open the next image. Please try again."), 'danger', 5000);
    } finally {
      setBusy(null);
    }
  };
  return (
    <>
      <Button variant="secondary" size="sm" icon={<UserRound />} aria-pressed={mine} data-active={mine || undefined} onClick={() => useDataView.getState().setAssignee(mine ? null : 'me')}>
        My work
      </Button>
      {canReview ? (
        <Button variant="secondary" size="sm" icon={<ClipboardCheck />} busy={busy === 'review'} busyLabel="Opening..." disabled={busy !== null} onClick={() => void start('review')}>
          Review next
        </Button>
      ) : null}
      <Button variant="primary" size="sm" icon={<Play />} busy={busy === 'annotate'} busyLabel="Opening..." disabled={busy !== null} onClick={() => void start('annotate')}>
        Start working
      </Button>
    </>
  );
}
