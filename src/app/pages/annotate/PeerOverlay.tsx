// The others' cursors and selections over the canvas (live co-editing, issue 20): a light layer of
// absolutely placed elements above the editor's canvas, mapped from image pixels with the editor's
// camera (imageToScreen). Each cursor is an arrow in the person's colour with their name (text:
// React escapes it); each shape they selected is outlined (its bounds) in their colour: the one
// the server gave them in the peers list, as on their avatar. A cursor not moved for 10 s fades
// out (peerPresence.ts). The layer takes no pointer events.
// A shape shown as another person's draft (issue 35: their edit, not saved yet) carries a small tag
// under its bottom-left corner (the class name is drawn over the top-left one), "Ada Lovelace · unsaved" in their colour, until their save confirms it
// or the draft ends. The tags are text for screen readers (a list named "Unsaved edits of others");
// the cursors and outlines are not read (they move all the time).
import type { CSSProperties } from 'react';
import type { LivePeer } from '../../../contract/live';
import { annotationBounds, imageToScreen, type Editor } from '../../../engine';
import { inkOn, peerColorOf } from '../../components/PeerAvatars';
import { cursorOpacity, type PeerPresence } from '../../sync/live/peerPresence';
import { useCamera } from './useEditor';
import styles from './PeerOverlay.module.css';

export interface PeerOverlayProps {
  editor: Editor;
  peers: readonly LivePeer[];
  presence: PeerPresence;
  /** Changes with the document (the outlined shapes move with it). */
  documentVersion: number;
  now: number;
}

/** Draft tags drawn at most (a paste of many shapes is tagged on its first ones). */
const MAX_DRAFT_TAGS = 50;
/** The colour of a tag whose author is no longer on the image (their draft ends soon). */
const GONE_COLOR = '#667085';

export function PeerOverlay({ editor, peers, presence, now }: PeerOverlayProps) {
  const camera = useCamera(editor);
  const byId = new Map(peers.map((p) => [p.user_id, p]));
  const tags: { id: string; userId: string; text: string; color: string; left: number; top: number }[] = [];
  for (const [id, userId] of presence.drafts) {
    if (tags.length >= MAX_DRAFT_TAGS) break;
    const a = editor.getAnnotation(id);
    if (!a) continue; // a draft that removes a shape: nothing to tag
    const peer = byId.get(userId);
    const b = annotationBounds(a);
    const [left, top] = imageToScreen(camera, b.minX, b.maxY);
    tags.push({ id, userId, text: peer ? `${peer.name} · unsaved` : 'Unsaved', color: peer ? peerColorOf(peer) : GONE_COLOR, left, top });
  }
  const outlines: { key: string; userId: string; name: string; color: string; left: number; top: number; width: number; height: number }[] = [];
  for (const [userId, ids] of presence.selections) {
    const peer = byId.get(userId);
    if (!peer) continue;
    for (const id of ids) {
      const a = editor.getAnnotation(id);
      if (!a) continue;
      const b = annotationBounds(a);
      const [x0, y0] = imageToScreen(camera, b.minX, b.minY);
      const [x1, y1] = imageToScreen(camera, b.maxX, b.maxY);
      outlines.push({ key: `${userId}:${id}`, userId, name: peer.name, color: peerColorOf(peer), left: x0, top: y0, width: x1 - x0, height: y1 - y0 });
    }
  }
  const cursors = [...presence.cursors].flatMap(([userId, c]) => {
    const peer = byId.get(userId);
    const opacity = cursorOpacity(c.at, now);
    if (!peer || opacity <= 0) return [];
    const [x, y] = imageToScreen(camera, c.x, c.y);
    return [{ userId, name: peer.name, color: peerColorOf(peer), x, y, opacity }];
  });
  const drawn = outlines.length > 0 || cursors.length > 0;
  if (!drawn && tags.length === 0) return null;
  return (
    <>
      {tags.length > 0 ? (
        <ul className={styles.layer} aria-label="Unsaved edits of others" data-testid="peer-drafts">
          {tags.map((t) => (
            <li key={t.id} className={styles.draft} data-testid="peer-draft" data-user={t.userId} data-ink={inkOn(t.color)} style={{ left: t.left, top: t.top, '--peer-color': t.color } as CSSProperties}>
              {t.text}
            </li>
          ))}
        </ul>
      ) : null}
      {drawn ? (
        <div className={styles.layer} aria-hidden="true" data-testid="peer-overlay">
          {outlines.map((o) => (
            <div
              key={o.key}
              className={styles.outline}
              data-testid="peer-selection"
              data-user={o.userId}
              data-color={o.color}
              title={o.name}
              style={{ left: o.left - 3, top: o.top - 3, width: o.width + 6, height: o.height + 6, '--peer-color': o.color } as CSSProperties}
            />
          ))}
          {cursors.map((c) => (
            <div key={c.userId} className={styles.cursor} data-testid="peer-cursor" data-user={c.userId} data-color={c.color} style={{ transform: `translate(${c.x}px, ${c.y}px)`, opacity: c.opacity, '--peer-color': c.color } as CSSProperties}>
              <svg className={styles.arrow} viewBox="0 0 16 20" width="16" height="20" aria-hidden="true">
                <path d="M1 1 L1 16 L5 12 L8 19 L11 18 L8 11 L14 11 Z" fill={c.color} stroke="white" strokeWidth="1.5" strokeLinejoin="round" />
              </svg>
              <span className={styles.name} data-ink={inkOn(c.color)}>
                {c.name}
              </span>
            </div>
          ))}
        </div>
      ) : null}
    </>
  );
}
