// The editor's part of the review loop (issue 29): what this member may do with the image now, and
// doing it. An image in work (Not started, In progress) is handed in with Submit for review by its
// assignee (anyone who may annotate, when nobody is assigned); an image In review is accepted or
// rejected by a reviewer (owner, admin, reviewer). Submit saves the pending changes first, so what
// is reviewed is what the annotator sees. Each decision then opens the next image of the member's
// queue (POST /projects/{id}/queue/next); with nothing left the editor says so and goes back to
// the Data tab.
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useRef, useState } from 'react';
import type { Image, ImageStatus } from '../../../../contract/images';
import type { QueueRole } from '../../../../contract/workflow';
import { serverMessage } from '../../../api/client';
import { workflowApi } from '../../../api/workflow';
import { useSession } from '../../../stores/session';
import { toast } from '../../../stores/toast';
import { useDataView } from '../../../stores/dataView';
import { projectKey } from '../../../stores/projectQueries';
import type { EditorSaveLink, SaveManager } from '../../../sync/save';
import { issuesKey } from './useIssues';
import { reviewActions } from './rules';

/** How long the flow's toasts stay. */
const MESSAGE_MS = 4000;
export const NOTHING_LEFT = 'Nothing left in your queue';

export interface ReviewFlowOptions {
  image: Image;
  /** The image's stage as the top bar knows it (the stage picker and saves move it). */
  status: ImageStatus;
  orgId: string;
  projectId: string;
  saver: SaveManager;
  link: EditorSaveLink;
  onNavigate(image: Image): void;
  onBack(): void;
}

export interface ReviewFlow {
  /** Submit for review is offered (the image is in work and this member may hand it in). */
  canSubmit: boolean;
  /** Accept and Reject... are offered (the image is in review and this member reviews). */
  canReview: boolean;
  busy: 'submit' | 'accept' | 'reject' | null;
  submit(): Promise<void>;
  accept(): Promise<void>;
  reject(comment: string): Promise<boolean>;
  rejectOpen: boolean;
  setRejectOpen(open: boolean): void;
}

export function useReviewFlow({ image, status, orgId, projectId, saver, link, onNavigate, onBack }: ReviewFlowOptions): ReviewFlow {
  const qc = useQueryClient();
  const role = useSession((s) => s.organizations.find((o) => o.id === orgId)?.user_role ?? null);
  const userId = useSession((s) => s.user?.id ?? null);
  const { canSubmit, canReview } = reviewActions(role, userId, image, status);
  const [busy, setBusy] = useState<ReviewFlow['busy']>(null);
  const busyRef = useRef(false);
  const [rejectOpen, setRejectOpen] = useState(false);

  /** Every cached copy of the image, the project's counts and the Data tab learn what changed. */
  const learn = useCallback(
    (next: Image) => {
      const update = (i: Image) => (i.id === next.id ? { ...i, ...next } : i);
      qc.setQueriesData<Image | null>({ queryKey: ['editor-image', projectId] }, (img) => (img ? update(img) : img));
      qc.setQueriesData<Image[]>({ queryKey: ['editor-sequence', projectId] }, (list) => list?.map(update));
      void qc.invalidateQueries({ queryKey: projectKey(projectId) });
      useDataView.getState().reload();
    },
    [qc, projectId],
  );

  /** Opens the member's next image for `role`, or says nothing is left and goes back to the Data tab. */
  const openNext = useCallback(
    async (queue: QueueRole) => {
      let next: Image | null;
      try {
        next = await workflowApi.queueNext(projectId, queue, orgId);
      } catch (err) {
        toast(serverMessage(err, "Couldn't open the next image. Go back to the Data tab and press Start working."), 'danger', MESSAGE_MS);
        return;
      }
      if (next) onNavigate(next);
      else {
        toast(queue === 'review' ? `${NOTHING_LEFT}: no image waits for your review.` : `${NOTHING_LEFT}: every image assigned to you is handed in.`, 'success', MESSAGE_MS);
        onBack();
      }
    },
    [projectId, orgId, onNavigate, onBack],
  );

  /** Runs one decision at a time (a key pressed twice does not submit twice). */
  const once = useCallback(async (kind: NonNullable<ReviewFlow['busy']>, work: () => Promise<void>) => {
    if (busyRef.current) return;
    busyRef.current = true;
    setBusy(kind);
    try {
      await work();
    } finally {
      busyRef.current = false;
      setBusy(null);
    }
  }, []);

  const submit = useCallback(
    () =>
      once('submit', async () => {
        // What is reviewed is what the annotator sees: the pending changes are saved first.
        link.flush(true);
        await saver.flush();
        if (saver.status().unsavedImages > 0) {
          toast("Your changes aren't saved yet, so the image was not submitted. Try again once the top bar says Saved.", 'danger', MESSAGE_MS);
          return;
        }
        try {
          const res = await workflowApi.submit(image.id, orgId);
          learn(res.image);
          // An overlapped image (issue 36 §3) goes to review only once all its annotators have handed in their layers.
          const waiting = res.image.overlap > 1 && res.image.status !== 'review';
          toast(waiting ? `Your layer of ${image.filename} is handed in; it goes to review once all ${res.image.overlap} annotators have submitted` : `${image.filename} submitted for review`, 'success', MESSAGE_MS);
        } catch (err) {
          toast(serverMessage(err, "Couldn't submit the image. Please try again."), 'danger', MESSAGE_MS);
          return;
        }
        await openNext('annotate');
      }),
    [once, link, saver, image.id, image.filename, orgId, learn, openNext],
  );

  const decide = useCallback(
    async (decision: 'accept' | 'reject', comment?: string): Promise<boolean> => {
      try {
        const res = await workflowApi.review(image.id, comment ? { decision, comment } : { decision }, orgId);
        learn(res.image);
        if (res.issue) void qc.invalidateQueries({ queryKey: issuesKey(image.id) });
        toast(decision === 'accept' ? `${image.filename} accepted: Done` : `${image.filename} sent back to the annotator`, 'success', MESSAGE_MS);
      } catch (err) {
        toast(serverMessage(err, decision === 'accept' ? "Couldn't accept the image. Please try again." : "Couldn't reject the image. Please try again."), 'danger', MESSAGE_MS);
        return false;
      }
      await openNext('review');
      return true;
    },
    [image.id, image.filename, orgId, learn, qc, openNext],
  );

  const accept = useCallback(() => once('accept', async () => void (await decide('accept'))), [once, decide]);
  const reject = useCallback(
    async (comment: string) => {
      let done = false;
      await once('reject', async () => {
        done = await decide('reject', comment.trim() || undefined);
      });
      if (done) setRejectOpen(false);
      return done;
    },
    [once, decide],
  );

  return { canSubmit, canReview, busy, submit, accept, reject, rejectOpen, setRejectOpen };
}
