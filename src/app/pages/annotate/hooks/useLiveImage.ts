// Live co-editing in the editor screen (issue 20), as React reads it: the work is the open image's
// LiveImage (src/app/sync/live/liveImage.ts: others' changes into the document through the save
// link, the people, their cursors and selections, ours sent); this makes one per image, starts it
// while shown, and hands the open path's loaded version to it.
import { useCallback, useEffect, useMemo, useRef, useSyncExternalStore } from 'react';
import type { LivePeer } from '../../../../contract/live';
import type { Editor } from '../../../../engine';
import { getLiveClient, type LiveClient } from '../../../sync/live';
import { LiveImage } from '../../../sync/live/liveImage';
import type { EditorSaveLink, SaveManager } from '../../../sync/save';
import type { OpeningHooks } from '../../../editor-session/openImage';

export interface LiveImageOptions {
  imageId: string;
  projectId: string;
  readOnly: boolean;
  link: EditorSaveLink;
  saver: SaveManager;
  opening: OpeningHooks;
  /** This image's document is in the editor (set as the screen renders). */
  documentReady(): boolean;
  /** Opens the image again (the whole document: the change log no longer reaches back). */
  reopen: () => void;
  client?: LiveClient;
}

export function useLiveImage({ imageId, projectId, readOnly, link, saver, opening, documentReady, reopen, client }: LiveImageOptions) {
  const live = client ?? getLiveClient();
  // Read through refs: a new function each render must not make a new LiveImage (it would leave
  // and join the image again on every render).
  const reopenRef = useRef(reopen);
  reopenRef.current = reopen;
  const readyRef = useRef(documentReady);
  readyRef.current = documentReady;
  const image = useMemo(
    () => new LiveImage({ imageId, projectId, readOnly, link, saver, live, documentReady: () => readyRef.current(), reopen: () => reopenRef.current() }),
    [imageId, projectId, readOnly, link, saver, live],
  );
  useEffect(() => image.start(), [image]);
  const state = useSyncExternalStore(image.subscribe, image.getState);

  // The open path reports the version it loaded.
  const liveOpening = useMemo<OpeningHooks>(
    () => ({
      ...opening,
      loadedVersion(id, version) {
        opening.loadedVersion(id, version);
        if (id === imageId) image.loadedVersion(version);
      },
    }),
    [opening, image, imageId],
  );

  return {
    liveOpening,
    /** Call when the document arrived (opened, reopened): catches up with what was saved meanwhile. */
    resync: useCallback(() => image.resync(), [image]),
    /** The people on this image (the user included), as the server last said. */
    peers: state.peers as LivePeer[],
    userId: live.userId,
    /** The others' cursors and selections on this image. */
    presence: state.presence,
    /** The clock the cursors' fading is drawn at (moves while any cursor is shown). */
    now: state.now,
    sendCursor: image.sendCursor,
    sendSelection: image.sendSelection,
  };
}

/**
 * Our selection goes to the others as it changes, once this image's document is in the editor,
 * and again whenever the people on the image change (`joined` after a (re)connect, someone
 * arriving), so that a newcomer sees it too.
 */
export function useSendSelection(editor: Editor, documentIn: boolean, peers: readonly LivePeer[], sendSelection: (ids: readonly string[], again?: boolean) => void): void {
  useEffect(() => {
    if (!documentIn) return;
    sendSelection(editor.getSelectedIds(), true);
    return editor.subscribe((c) => {
      if (c.view || c.document) sendSelection(editor.getSelectedIds());
    });
  }, [editor, documentIn, peers, sendSelection]);
}
