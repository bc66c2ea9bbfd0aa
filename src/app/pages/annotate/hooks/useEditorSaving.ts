// The editor screen's saving (./save): the app's save manager and its status, the link between the
// editor and it, what follows a save's answer, and the flush when the page is hidden. When another
// person's saved change meets the user's own edits of the image (the link's onOverlap: their later
// change replaced a shape the user saved in the last minutes, or met one the user is still
// editing), the user is told who (from the image's history) and how many shapes, as the person
// whose save met a 409 is told by the merge. The other way round, when this user's merge after a
// 409 drops their edit of shapes for another person's later one, that person is told through the
// live socket (`overlap`): this tab sends it, and tells its user when another's names shapes this
// tab saved in the last minutes (their edit lost to the user's).
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import type { SaveDataResponse } from '../../../../contract/annotation-api';
import type { Image } from '../../../../contract/images';
import type { Editor } from '../../../../engine';
import { getLiveClient } from '../../../sync/live';
import { toast } from '../../../stores/toast';
import { projectKey } from '../../../stores/projectQueries';
import { editorApi } from '../../../api/annotations/editorApi';
import { historyKey } from '../HistoryPanel';
import { EditorSaveLink, getSaveManager, type Overlap, type SaveManager, type SaveStatus } from '../../../sync/save';
import { outlastedMessage, overlapAuthor, overlapMessages } from '../../../sync/save/overlap';

/** How long the toasts about another person's change stay (as the 409 merge's). */
const OVERLAP_TOAST_MS = 6000;

/** Tells the user about an overlap, naming the other person from the image's latest history entries. */
async function tellOverlap(imageId: string, projectId: string, o: Overlap): Promise<void> {
  const me = getLiveClient().userId;
  if (o.by !== null && o.by === me) return; // this user's other tab
  let who: string | null = null;
  try {
    who = overlapAuthor(o, (await editorApi.history(imageId, projectId, { limit: 20 })).entries, me);
  } catch {
    // Not named: 'Someone else'.
  }
  for (const message of overlapMessages(o, who)) toast(message, 'neutral', OVERLAP_TOAST_MS);
}

export function useEditorSaving(editor: Editor, projectId: string) {
  const qc = useQueryClient();
  const saver = getSaveManager();
  const saveStatus = useSyncExternalStore(
    useCallback((cb: () => void) => saver.subscribe(cb), [saver]),
    () => saver.status(),
  );
  // True while changes wait in the link's short gathering window: the top bar must not say 'Saved' then.
  const [gathering, setGathering] = useState(false);
  // Between the editor and the save manager: deltas out, merged conflicts back in as changes to
  // the live document. It knows the image the editor holds (none while one loads: changes made
  // by loading are not the user's).
  const link = useMemo(
    () =>
      new EditorSaveLink(editor, saver, {
        onGathering: setGathering,
        onMerged: (merge) => {
          toast(
            merge.conflicts.length
              ? `Conflict merged: someone else saved this image too. ${merge.conflicts.length} annotation(s) changed on both sides kept the later edit.`
              : 'Conflict merged: changes saved from elsewhere were kept with yours.',
            'neutral',
            OVERLAP_TOAST_MS,
          );
          // The other side's later edit won: this change of them is never saved, so only this says so.
          const image = link.image;
          if (image && merge.theirsWon.length) getLiveClient().sendOverlap(image.imageId, merge.theirsWon);
        },
        onOverlap: (o) => {
          const image = link.image;
          if (image) void tellOverlap(image.imageId, image.projectId, o);
        },
      }),
    [editor, saver],
  );
  useEffect(() => link.start(), [link]);
  // Another person's merge dropped their edit of shapes this tab saved recently: the user's won.
  useEffect(
    () =>
      getLiveClient().onPeerOverlap((imageId, o) => {
        const mine = link.outlasted(imageId, o.ids);
        if (mine.length) toast(outlastedMessage(mine.length, o.name), 'neutral', OVERLAP_TOAST_MS);
      }),
    [link],
  );

  // The project page's counters, the sequence's statuses and the history follow a save's answer.
  const followSave = useCallback(
    (imageId: string, res: SaveDataResponse) => {
      if (res.status_updated) void qc.invalidateQueries({ queryKey: projectKey(projectId) });
      qc.setQueriesData<Image[]>({ queryKey: ['editor-sequence', projectId] }, (list) =>
        list?.map((i) => (i.id === imageId ? { ...i, status: res.status, annotation_count: res.new_count } : i)),
      );
      void qc.invalidateQueries({ queryKey: historyKey(imageId) });
    },
    [qc, projectId],
  );

  // What the top bar shows: changes still gathering are unsaved, whatever the manager says.
  const shownStatus: SaveStatus = gathering && (saveStatus.state === 'saved' || saveStatus.state === 'conflict-merged') ? { ...saveStatus, state: 'pending', label: 'Unsaved changes' } : saveStatus;
  return { saver, saveStatus, shownStatus, gathering, link, followSave };
}

/** Saves follow the screen (followSave), and pending changes leave with keepalive when the page is hidden. */
export function usePageHideFlush(saver: SaveManager, link: EditorSaveLink, followSave: (imageId: string, res: SaveDataResponse) => void): void {
  useEffect(() => {
    const offSaved = saver.onSaved(followSave);
    const onHide = () => {
      link.flush();
      saver.flushOnPageHide();
    };
    const onVisibility = () => document.visibilityState === 'hidden' && onHide();
    window.addEventListener('pagehide', onHide);
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      offSaved();
      window.removeEventListener('pagehide', onHide);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [saver, link, followSave]);
}
