// The people on an image (live co-editing, issue 20): in the editor's top bar, and small on the
// Data tab's tiles. One avatar per person, their initials on their colour, their name in the
// tooltip and the accessible name (a viewer is marked as viewing). Shown once someone else is
// there: the others first, then (in the editor) the user ("(you)"), whose colour is the one the
// others see. Names are text (React escapes them). Each person is drawn in the colour the server
// gave them (`color`: distinct among the people on the image, the same on every client); it is
// never worked out here.
import type { LivePeer } from '../../contract/live';
import { Tooltip } from './Tooltip';
import { initials } from '../lib/format';
import styles from './PeerAvatars.module.css';

const HEX = /^#[0-9a-f]{6}$/i;
/** For a colour that is not a plain hex colour (never sent by the server): slate, --color-status-new. */
const UNKNOWN_COLOR = '#667085';

/** The person's colour as the server gave it, when it is a plain hex colour (anything else never reaches a style). */
export function peerColorOf(peer: LivePeer): string {
  return HEX.test(peer.color) ? peer.color.toLowerCase() : UNKNOWN_COLOR;
}

/** Initials in dark text on the light colours of the palette (white on them would be unreadable). */
export function inkOn(hex: string): 'light' | 'dark' {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const luminance = 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  // Contrast with white (1.05 / (L + 0.05)) under 4.5 while black does better: dark ink.
  return 1.05 / (luminance + 0.05) >= (luminance + 0.05) / 0.05 ? 'light' : 'dark';
}

type Side = 'top' | 'bottom';

/** The name, and whether the person only views. */
const nameOf = (p: LivePeer) => (p.can_edit ? p.name : `${p.name} (viewing)`);

function PeerAvatar({ peer, label, color, side }: { peer: LivePeer; label: string; color: string; side: Side }) {
  return (
    <li className={styles.item}>
      <Tooltip content={label} side={side}>
        <span className={styles.avatar} style={{ background: color }} data-ink={inkOn(color)} role="img" aria-label={label} tabIndex={0} data-watching={peer.can_edit ? undefined : true}>
          {initials(peer.name)}
        </span>
      </Tooltip>
    </li>
  );
}

export interface PeerAvatarsProps {
  /** Everyone on the image, as the server says (the user included), each with their colour. */
  peers: readonly LivePeer[];
  selfId: string | null;
  /** Others shown before the rest are counted as "+n". */
  max?: number;
  /** 'sm': on a Data tab tile. */
  size?: 'md' | 'sm';
  /** The user's own avatar after the others (the editor); off on a tile, where only the others count. */
  showSelf?: boolean;
  /** The list's accessible name. */
  label?: string;
  tooltipSide?: Side;
}

export function PeerAvatars({ peers, selfId, max = 5, size = 'md', showSelf = true, label = 'People on this image', tooltipSide = 'bottom' }: PeerAvatarsProps) {
  const others = peers.filter((p) => p.user_id !== selfId);
  if (others.length === 0) return null;
  const self = showSelf ? peers.find((p) => p.user_id === selfId) : undefined;
  const shown = others.slice(0, max);
  const hidden = others.slice(max);
  return (
    <ul className={styles.peers} aria-label={label} data-size={size} data-testid="peer-avatars">
      {shown.map((p) => (
        <PeerAvatar key={p.user_id} peer={p} color={peerColorOf(p)} side={tooltipSide} label={nameOf(p)} />
      ))}
      {hidden.length > 0 ? (
        <li className={styles.item}>
          <Tooltip content={hidden.map(nameOf).join(', ')} side={tooltipSide}>
            <span className={`${styles.avatar} ${styles.more}`} role="img" aria-label={`${hidden.length} more`} tabIndex={0}>
              +{hidden.length}
            </span>
          </Tooltip>
        </li>
      ) : null}
      {self ? <PeerAvatar peer={self} color={peerColorOf(self)} side={tooltipSide} label={`${self.name} (you)`} /> : null}
    </ul>
  );
}
