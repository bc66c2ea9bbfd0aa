// The image's issues in the editor (issue 29): the threads (GET /images/{id}/issues, loaded again
// when the live socket says someone changed them), opening one
// on a point or a region, comments, resolve and reopen; the one chosen in the panel, centred on the
// canvas; the pins and regions handed to the renderer (issuesFor: the render worker draws them).
// The panel opens by itself when the image has open issues (a rejected image comes back with the
// reviewer's comment and issues shown).
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { Image } from '../../../../contract/images';
import type { Issue, IssueStatus, Region } from '../../../../contract/workflow';
import type { Editor } from '../../../../engine';
import { issuesFor } from '../../../../workers/render-client';
import { serverMessage } from '../../../api/client';
import { getLiveClient } from '../../../sync/live';
import { workflowApi } from '../../../api/workflow';
import { toast } from '../../../stores/toast';
import { useDataView } from '../../../stores/dataView';
import { centredCamera, clampRegion, PANEL_COVER_PX, renderIssues } from './rules';

export const issuesKey = (imageId: string) => ['issues', imageId] as const;

const MESSAGE_MS = 4000;
export interface IssuesState {
  issues: Issue[];
  loading: boolean;
  error: boolean;
  retry(): void;
  open: boolean;
  setOpen(open: boolean): void;
  focusedId: string | null;
  /** Chooses a thread: it is drawn red and its region centred. */
  focus(issue: Issue): void;
  /** An issue is being written (in the panel's form). */
  composing: boolean;
  /** The point or region of the issue being written (drawn as a red pin); null for one on the whole image. */
  draft: Region | null;
  /** Starts writing an issue on `region` (in image px; kept within the image). */
  startDraft(region: Region | null): void;
  cancelDraft(): void;
  create(body: string): Promise<boolean>;
  comment(issue: Issue, body: string): Promise<boolean>;
  setStatus(issue: Issue, status: IssueStatus): Promise<void>;
  busy: boolean;
}

// Long because the threads, the one chosen and its camera, and the live reload share one image's
// state; each request is a line or two.
export function useIssues({ editor, image, orgId, documentIn }: { editor: Editor; image: Image; orgId: string; documentIn: boolean }): IssuesState {
  const qc = useQueryClient();
  const imageId = image.id;
  const query = useQuery({ queryKey: issuesKey(imageId), queryFn: () => workflowApi.listIssues(imageId, orgId), enabled: Boolean(orgId), staleTime: 10_000 });
  const issues = useMemo(() => query.data ?? [], [query.data]);
  const [open, setOpen] = useState(false);
  const [focusedId, setFocusedId] = useState<string | null>(null);
  const [draft, setDraft] = useState<{ imageId: string; region: Region | null } | null>(null);
  const [busy, setBusy] = useState(false);
  const shownDraft = draft && draft.imageId === imageId ? draft : null;

  // Another image: nothing chosen; the panel opens by itself once this one's issues say it has open ones.
  const autoOpened = useRef<string | null>(null);
  useEffect(() => {
    setFocusedId(null);
    setDraft(null);
  }, [imageId]);
  useEffect(() => {
    if (!query.isSuccess || autoOpened.current === imageId) return;
    autoOpened.current = imageId;
    setOpen(issues.some((i) => i.status === 'open'));
  }, [query.isSuccess, issues, imageId]);

  // Someone on the image opened, answered, resolved or reopened an issue: the live socket says so.
  useEffect(() => getLiveClient().onIssues((id) => id === imageId && void qc.invalidateQueries({ queryKey: issuesKey(id) })), [qc, imageId]);

  // The renderer draws the pins once this image's document (and its image) is in.
  useEffect(() => {
    issuesFor(editor, documentIn ? renderIssues(issues, focusedId, shownDraft?.region ?? null) : []);
  }, [editor, documentIn, issues, focusedId, shownDraft]);
  useEffect(() => () => issuesFor(editor, []), [editor]);

  /** The thread list and every view of the image's open-issue count follow a change. */
  const remember = useCallback(
    (next: Issue) => {
      qc.setQueryData<Issue[]>(issuesKey(next.image_id), (list = []) => (list.some((i) => i.id === next.id) ? list.map((i) => (i.id === next.id ? next : i)) : [...list, next]));
      const openCount = (qc.getQueryData<Issue[]>(issuesKey(next.image_id)) ?? []).filter((i) => i.status === 'open').length;
      const update = (i: Image) => (i.id === next.image_id ? { ...i, open_issues: openCount } : i);
      qc.setQueriesData<Image | null>({ queryKey: ['editor-image', image.project_id] }, (img) => (img ? update(img) : img));
      qc.setQueriesData<Image[]>({ queryKey: ['editor-sequence', image.project_id] }, (list) => list?.map(update));
      useDataView.getState().reload();
    },
    [qc, image.project_id],
  );

  const focus = useCallback(
    (issue: Issue) => {
      setFocusedId(issue.id);
      // Chosen in the panel, so the panel covers the canvas's right side: centre in what is left.
      if (issue.region) editor.setCamera(centredCamera(editor.getCamera(), editor.getViewport(), issue.region, PANEL_COVER_PX));
    },
    [editor],
  );

  const startDraft = useCallback(
    (region: Region | null) => {
      const size = editor.getImageSize();
      const kept = region && size ? clampRegion(region, size.width, size.height) : null;
      if (region && !kept) {
        toast('Point at the image to pin an issue there', 'neutral', MESSAGE_MS);
        return;
      }
      setDraft({ imageId, region: kept });
      setFocusedId(null);
      setOpen(true);
    },
    [editor, imageId],
  );
  const cancelDraft = useCallback(() => setDraft(null), []);

  const run = useCallback(async <T>(work: () => Promise<T>, failure: string): Promise<T | null> => {
    setBusy(true);
    try {
      return await work();
    } catch (err) {
      toast(serverMessage(err, failure), 'danger', MESSAGE_MS);
      return null;
    } finally {
      setBusy(false);
    }
  }, []);

  const create = useCallback(
    async (body: string) => {
      const region = shownDraft?.region ?? undefined;
      const issue = await run(() => workflowApi.createIssue(imageId, body.trim(), region, orgId), "Couldn't open the issue. Please try again.");
      if (!issue) return false;
      remember(issue);
      setDraft(null);
      setFocusedId(issue.id);
      return true;
    },
    [run, imageId, orgId, shownDraft, remember],
  );

  const comment = useCallback(
    async (issue: Issue, body: string) => {
      const added = await run(() => workflowApi.addComment(issue.id, body.trim(), orgId), "Couldn't add the comment. Please try again.");
      if (!added) return false;
      remember({ ...issue, comments: [...issue.comments, added] });
      return true;
    },
    [run, orgId, remember],
  );

  const setStatus = useCallback(
    async (issue: Issue, status: IssueStatus) => {
      const next = await run(() => workflowApi.setIssueStatus(issue.id, status, orgId), status === 'resolved' ? "Couldn't resolve the issue. Please try again." : "Couldn't reopen the issue. Please try again.");
      if (next) remember(next);
    },
    [run, orgId, remember],
  );

  return {
    issues,
    loading: query.isPending,
    error: query.isError,
    retry: () => void query.refetch(),
    open,
    setOpen,
    focusedId,
    focus,
    composing: shownDraft !== null,
    draft: shownDraft?.region ?? null,
    startDraft,
    cancelDraft,
    create,
    comment,
    setStatus,
    busy,
  };
}
