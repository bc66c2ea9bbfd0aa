// Live co-editing in the editor screen (issue 20): the open image is watched through the tab's
// live client (src/app/sync/live). Another person's saved change goes into the live document
// through the save link (the save manager's copy of the server document moves on, then
// Editor.applyRemote: selection, a drag in progress and undo of the user's own edits stay), never
// a reload. This tab's own saves are told apart by version: the manager already holds them
// ('known'), or a save is in flight and the change waits for its answer ('busy'). A view-only
// editor has no save slot: it keeps the version it loaded and applies changes directly. When the
// change log no longer reaches back, the image is opened again.
// The others' cursors and selections are kept here (peerPresence.ts) and drawn by PeerOverlay;
// our own go out through sendCursor (throttled to 20 a second) and sendSelection.
import { useCallback, useEffect, useMemo, useRef, useState, type RefObject } from 'react';
import type { LivePeer } from '../../../../contract/live';
import type { Editor } from '../../../../engine';
import { getLiveClient, type ApplyResult, type LiveChange, type LiveClient } from '../../../sync/live';
import { CURSOR_SEND_INTERVAL_MS, EMPTY_PRESENCE, dropFaded, keepPeers, throttle, withCursor, withSelection, type PeerPresence } from '../../../sync/live/peerPresence';
import type { EditorSaveLink, SaveManager } from '../../../sync/save';
import type { HistoryOpening } from './useHistoryView';

export interface LiveImageOptions {
  imageId: string;
  projectId: string;
  readOnly: boolean;
  link: EditorSaveLink;
  saver: SaveManager;
  opening: HistoryOpening;
  /** This image's document is in the editor (set as the screen renders). */
  documentReady: RefObject<boolean>;
  /** Opens the image again (the whole document: the change log no longer reaches back). */
  reopen: () => void;
  client?: LiveClient;
}

const NO_PEERS: LivePeer[] = [];

export function useLiveImage({ imageId, projectId, readOnly, link, saver, opening, documentReady, reopen, client }: LiveImageOptions) {
  const live = client ?? getLiveClient();
  const [peers, setPeers] = useState<{ imageId: string; list: LivePeer[] }>({ imageId, list: [] });
  const [presence, setPresence] = useState<{ imageId: string; state: PeerPresence }>({ imageId, state: EMPTY_PRESENCE });
  // The version a view-only editor loaded (and moved on with the changes it applied).
  const viewVersion = useRef<{ imageId: string; version: number } | null>(null);

  // The open path reports the version it loaded.
  const liveOpening = useMemo<HistoryOpening>(
    () => ({
      ...opening,
      loadedVersion(id, version) {
        opening.loadedVersion(id, version);
        viewVersion.current = { imageId: id, version };
      },
    }),
    [opening],
  );

  const reopenRef = useRef(reopen);
  reopenRef.current = reopen;

  const heldVersion = useCallback((): number | null => {
    if (!documentReady.current) return null;
    if (!readOnly) return link.image?.imageId === imageId ? saver.version(imageId) : null;
    return viewVersion.current?.imageId === imageId ? viewVersion.current.version : null;
  }, [readOnly, link, saver, imageId, documentReady]);

  const apply = useCallback(
    (change: LiveChange): ApplyResult => {
      if (!readOnly) return link.applyRemoteChange(imageId, change).kind;
      const held = heldVersion();
      if (held === null) return 'closed';
      if (change.version <= held) return 'known';
      if (change.base_version !== held) return 'gap';
      link.applyToEditor(change.upserts, change.removed_ids, new Set());
      viewVersion.current = { imageId, version: change.version };
      return 'applied';
    },
    [readOnly, link, imageId, heldVersion],
  );

  useEffect(
    () =>
      live.watch(imageId, projectId, {
        version: heldVersion,
        apply,
        reload: () => reopenRef.current(),
        onPeers: (list) => {
          setPeers({ imageId, list });
          setPresence((p) => (p.imageId === imageId ? { imageId, state: keepPeers(p.state, list) } : { imageId, state: EMPTY_PRESENCE }));
        },
        onCursor: (userId, c) => setPresence((p) => ({ imageId, state: withCursor(p.imageId === imageId ? p.state : EMPTY_PRESENCE, userId, c.x, c.y, Date.now()) })),
        onSelection: (userId, ids) => setPresence((p) => ({ imageId, state: withSelection(p.imageId === imageId ? p.state : EMPTY_PRESENCE, userId, ids) })),
      }),
    [live, imageId, projectId, heldVersion, apply],
  );

  // Cursors not moved for a while fade out: the overlay re-renders on this tick while any is shown.
  const shownPresence = presence.imageId === imageId ? presence.state : EMPTY_PRESENCE;
  const anyCursor = shownPresence.cursors.size > 0;
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!anyCursor) return;
    const timer = setInterval(() => {
      const t = Date.now();
      setNow(t);
      setPresence((p) => {
        const state = dropFaded(p.state, t);
        return state === p.state ? p : { ...p, state };
      });
    }, 250);
    return () => clearInterval(timer);
  }, [anyCursor]);

  // Our cursor, in image pixels, at most 20 a second (the last position always goes).
  const cursorSender = useMemo(
    () => throttle((x: number, y: number) => live.sendCursor(imageId, x, y), CURSOR_SEND_INTERVAL_MS, { now: () => performance.now(), setTimer: (fn, ms) => setTimeout(fn, ms), clearTimer: (h) => clearTimeout(h as ReturnType<typeof setTimeout>) }),
    [live, imageId],
  );
  useEffect(() => () => cursorSender.cancel(), [cursorSender]);
  const lastSelection = useRef<{ imageId: string; key: string } | null>(null);
  const sendSelection = useCallback(
    (ids: readonly string[], again = false) => {
      const key = ids.join('\n');
      if (!live.connected || (!again && lastSelection.current?.imageId === imageId && lastSelection.current.key === key)) return;
      lastSelection.current = { imageId, key };
      live.sendSelection(imageId, [...ids]);
    },
    [live, imageId],
  );

  return {
    liveOpening,
    /** Call when the document arrived (opened, reopened): catches up with what was saved meanwhile. */
    resync: useCallback(() => live.resync(imageId), [live, imageId]),
    /** The people on this image (the user included), as the server last said. */
    peers: peers.imageId === imageId ? peers.list : NO_PEERS,
    userId: live.userId,
    /** The others' cursors and selections on this image. */
    presence: shownPresence,
    /** The clock the cursors' fading is drawn at (moves while any cursor is shown). */
    now,
    sendCursor: cursorSender.call,
    sendSelection,
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
