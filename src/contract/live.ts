// The live co-editing protocol (issue 20): the messages of the WebSocket at /api/v1/live, their
// limits, and the one validator of what a client sends (the server runs it on every message; the
// SPA can type its side with the same schemas). Saving stays on HTTP (save-changes): the socket
// carries notifications of committed changes, presence, and drafts (edits not saved yet, shown to
// the others at once and never stored; issue 35). docs/live.md.
import { z } from 'zod';
import { StoredAnnotation } from './annotations';

/** The path of the socket, on the same port as the API. */
export const LIVE_PATH = '/api/v1/live';
/** The first message must be `auth` and arrive within this long, else the socket is closed with LIVE_CLOSE.unauthorized. */
export const LIVE_AUTH_TIMEOUT_MS = 5_000;
/** Largest message a client may send (bytes of UTF-8); a larger one closes the socket with LIVE_CLOSE.tooLarge. */
export const LIVE_MAX_MESSAGE_BYTES = 64 * 1024;
/** cursor, selection and overlap messages relayed per socket in any one second (one budget); the rest are dropped (an overlap answered `rate_limited`). */
export const LIVE_MAX_PEER_MESSAGES_PER_SECOND = 20;
/** auth, join, leave and watch messages per socket in any one second; the rest are answered `error` `rate_limited` and ignored. */
export const LIVE_MAX_CONTROL_MESSAGES_PER_SECOND = 10;
/** Images one socket may be joined to at once, and images it may watch at once (`watch`: the Data tab's tiles). */
export const LIVE_MAX_JOINS_PER_SOCKET = 200;
/** Ids in one selection message (a larger selection is sent as its first ids). */
export const LIVE_MAX_SELECTION_IDS = 1_000;
/** `project_changed` goes to a socket at most once in this long per project; what happens meanwhile comes in one message at its end. */
export const LIVE_PROJECT_CHANGED_MIN_MS = 1_000;
/** A `changed` whose upserts would be larger than this is sent with `omitted: true` and empty lists: load it with GET changes. */
export const LIVE_MAX_CHANGED_BYTES = 1024 * 1024;

/** Shapes (upserts) in one `draft`; removed ids in one draft: at most LIVE_MAX_SELECTION_IDS. A larger edit is not sent as a draft: the peers see it when it is saved. */
export const LIVE_MAX_DRAFT_SHAPES = 100;
/** `draft` messages relayed per socket in any one second (a budget of their own); the rest are dropped and answered `rate_limited`. The SPA sends at most one per LIVE_DRAFT_INTERVAL_MS. */
export const LIVE_MAX_DRAFTS_PER_SECOND = 20;
/** The SPA sends a draft at once, then at most one per this long while the edits go on (a drag), the last state always. */
export const LIVE_DRAFT_INTERVAL_MS = 50;
/**
 * A peer drops a shape's draft (and shows what the server holds) when no save of it by its author
 * arrived this long after the draft: the save is refused, or never comes. Three times the save
 * ceiling (3 s, SAVE_MAX_WAIT_MS) and more, for a slow save. A draft's author leaving the image (a
 * closed or reloading tab, an offline socket) ends theirs sooner: LIVE_DRAFT_LEAVE_GRACE_MS later.
 */
export const LIVE_DRAFT_TIMEOUT_MS = 10_000;
/**
 * A peer drops the drafts of someone who left the image this long after they left (or after its own
 * socket closed), unless their save confirms them first: a closing tab sends its unsaved work as it
 * goes, a reloading one as it comes back, and the server may hear the socket close before that save.
 */
export const LIVE_DRAFT_LEAVE_GRACE_MS = 5_000;

/** Close codes the server uses (besides the standard 1000, 1001 and 1009). */
export const LIVE_CLOSE = {
  /** No `auth` within LIVE_AUTH_TIMEOUT_MS, a first message that is not `auth`, a bad, expired or revoked credential, a new `auth` for another user. */
  unauthorized: 4401,
  /** The caller lost read access to an image it is joined to (removed from the organization, role changed). */
  forbidden: 4403,
  /** The user already has LIVE_MAX_SOCKETS_PER_USER sockets open on this server process. */
  tooManySockets: 4429,
  /** A message larger than LIVE_MAX_MESSAGE_BYTES (the standard "message too big"). */
  tooLarge: 1009,
} as const;

/** The colours given to people on an image, distinct from one another (peerColors). */
export const PEER_COLORS = ['#e6194b', '#3cb44b', '#4363d8', '#f58231', '#911eb4', '#42d4f4', '#f032e6', '#9a6324', '#469990', '#808000'] as const;

/** A person's own colour, in PEER_COLORS: the same for a user id everywhere (FNV-1a of the id). */
function ownColorIndex(userId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < userId.length; i++) h = Math.imul(h ^ userId.charCodeAt(i), 0x01000193) >>> 0;
  return h % PEER_COLORS.length;
}

/** A person's own colour: the same for a user id everywhere, but shared with 1 in 10 others. The people on an image get peerColors. */
export function peerColor(userId: string): string {
  return PEER_COLORS[ownColorIndex(userId)]!;
}

/**
 * The colour of each person on one image, distinct while there are no more people than
 * PEER_COLORS: everyone keeps their own colour (peerColor) unless someone before them in user-id
 * order has it; those take the next free colour after their own in PEER_COLORS (around the end).
 * Past ten people the rest keep their own colours. A function of the set of user ids alone (their
 * order and repeats do not matter), so every server process and client works out the same colours,
 * and a person's colour stays while the set does not change. When someone leaves, everyone who had
 * their own colour keeps it; someone who had to move on may move back to a freed one.
 */
export function peerColors(userIds: Iterable<string>): Map<string, string> {
  const ids = [...new Set(userIds)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const taken = new Array<boolean>(PEER_COLORS.length).fill(false);
  const out = new Map<string, string>();
  const moved: string[] = [];
  for (const id of ids) {
    const own = ownColorIndex(id);
    if (taken[own]) moved.push(id);
    else {
      taken[own] = true;
      out.set(id, PEER_COLORS[own]!);
    }
  }
  for (const id of moved) {
    const own = ownColorIndex(id);
    let pick = own;
    for (let step = 1; step < PEER_COLORS.length; step++) {
      const i = (own + step) % PEER_COLORS.length;
      if (!taken[i]) {
        pick = i;
        break;
      }
    }
    taken[pick] = true;
    out.set(id, PEER_COLORS[pick]!);
  }
  return out;
}

/** The peers of one image with their colours from peerColors (copies; the list's order kept). What the server sends in `joined`, `presence` and `watching`. */
export function withPeerColors<P extends { user_id: string; color: string }>(peers: readonly P[]): P[] {
  const colors = peerColors(peers.map((p) => p.user_id));
  return peers.map((p) => ({ ...p, color: colors.get(p.user_id)! }));
}

const uuid = z.string().uuid();
const coordinate = z.number().finite().min(-1e9).max(1e9);

// --- client to server

export const LiveAuth = z.object({ type: z.literal('auth'), token: z.string().min(1).max(8192) }).strict();
export const LiveJoin = z.object({ type: z.literal('join'), image_id: uuid, project_id: uuid }).strict();
export const LiveLeave = z.object({ type: z.literal('leave'), image_id: uuid }).strict();
/** The pointer in image pixels. */
export const LiveCursor = z.object({ type: z.literal('cursor'), image_id: uuid, x: coordinate, y: coordinate }).strict();
/** The ids of the shapes selected (empty: nothing). A presence signal only: it never edits anything. */
export const LiveSelection = z.object({ type: z.literal('selection'), image_id: uuid, ids: z.array(z.string().min(1).max(200)).max(LIVE_MAX_SELECTION_IDS) }).strict();
/**
 * Both people edited these shapes and the others' edit won: the sender's save met a 409 and its
 * merge kept the server's shape of each (the later edit), so the sender's change of them is
 * dropped and never saved. Relayed to the image's other sockets as `peer` with `overlap`, so the
 * person whose edit was kept is told too (nothing else says so: no version is made). Only from
 * someone who may edit the image (a viewer's is ignored); at most LIVE_MAX_SELECTION_IDS ids.
 */
export const LiveOverlap = z.object({ type: z.literal('overlap'), image_id: uuid, ids: z.array(z.string().min(1).max(200)).min(1).max(LIVE_MAX_SELECTION_IDS) }).strict();

/**
 * An edit not saved yet (issue 35): the shapes the sender just changed on the image (`upserts`, in
 * the stored format) and removed (`removed_ids`), on top of `base_version`, the server version the
 * sender's document builds on. Relayed at once to the image's other sockets as a server `draft`;
 * nothing is stored: the sender's HTTP save persists the edit on its usual schedule and its
 * `changed` confirms it. Only from someone who may edit the image (a viewer's is ignored); at most
 * LIVE_MAX_DRAFT_SHAPES upserts, LIVE_MAX_SELECTION_IDS removed ids, LIVE_MAX_DRAFTS_PER_SECOND a
 * second (the rest answered `rate_limited`), and the message within LIVE_MAX_MESSAGE_BYTES.
 */
export const LiveDraft = z
  .object({
    type: z.literal('draft'),
    image_id: uuid,
    base_version: z.number().int().min(0),
    upserts: z.array(StoredAnnotation).max(LIVE_MAX_DRAFT_SHAPES),
    removed_ids: z.array(z.string().min(1).max(200)).max(LIVE_MAX_SELECTION_IDS),
  })
  .strict()
  .refine((d) => d.upserts.length + d.removed_ids.length > 0, { message: 'A draft changes at least one shape' });
export type LiveDraft = z.infer<typeof LiveDraft>;

/**
 * Watch-only: the presence of these images (the Data tab's tiles), without joining them: the
 * watcher is no peer, gets no `changed`, cursors or selections. Replaces the socket's watched set
 * (an empty list ends it); at most LIVE_MAX_JOINS_PER_SOCKET ids.
 */
export const LiveWatch = z.object({ type: z.literal('watch'), project_id: uuid, image_ids: z.array(uuid) }).strict();

/**
 * Watch a project (the Data tab): `project_changed` whenever its images change in bulk (an import
 * ended, whoever ran it, on any server process). Only for a caller who may read the project's
 * images (else `not_found` with the project_id); answered `watching_project`. Replaces the
 * socket's watched project; null ends it. One project per socket.
 */
export const LiveWatchProject = z.object({ type: z.literal('watch_project'), project_id: uuid.nullable() }).strict();

export const LiveClientMessage = z.discriminatedUnion('type', [LiveAuth, LiveJoin, LiveLeave, LiveCursor, LiveSelection, LiveOverlap, LiveDraft, LiveWatch, LiveWatchProject]);
export type LiveClientMessage = z.infer<typeof LiveClientMessage>;

// --- server to client

export const LivePeer = z.object({
  user_id: z.string(),
  name: z.string(),
  /** One of PEER_COLORS, distinct among the people on the image (peerColors): clients draw the person in it as it is. */
  color: z.string(),
  /** Whether the person may edit this image's annotations; a viewer's selection is only where they look. */
  can_edit: z.boolean(),
});
export type LivePeer = z.infer<typeof LivePeer>;

export const LiveReady = z.object({ type: z.literal('ready'), user_id: z.string() });
/** Everyone joined to the image (on any server process), the caller included, one entry per person. */
export const LiveJoined = z.object({ type: z.literal('joined'), image_id: z.string(), version: z.number().int(), peers: z.array(LivePeer) });
export const LiveErrorCode = z.enum(['not_found', 'invalid_message', 'not_authenticated', 'not_joined', 'too_many_joins', 'rate_limited']);
/** `not_found`: the image (or the project, for watch_project) does not exist, is in another organization or cannot be read (nothing more is said about it). */
/**
 * `refused`: on `rate_limited`, the type of the message refused, with its `image_id` (join, leave,
 * cursor, selection, overlap, draft) or `project_id` (watch, watch_project), so the client can send
 * it again once the second's budget is back (a join or leave refused and not sent again left the
 * socket off an image it showed, or on one it had left).
 */
export const LiveError = z.object({
  type: z.literal('error'),
  code: LiveErrorCode,
  image_id: z.string().optional(),
  project_id: z.string().optional(),
  message: z.string().optional(),
  refused: z.enum(['auth', 'join', 'leave', 'cursor', 'selection', 'overlap', 'draft', 'watch', 'watch_project']).optional(),
});
/**
 * A committed change (any write path, any server process): what version `version` changed on top
 * of `base_version` (= version - 1). `by` is the user id (or API key id) that saved it, `saved_at`
 * when (server clock; optional: servers before it did not send it). The author's own sockets get it too. `omitted: true`: the lists are left out (the change was larger
 * than LIVE_MAX_CHANGED_BYTES); load it with GET /api/v1/annotations/changes/{image_id}?since=base_version.
 */
export const LiveChanged = z.object({
  type: z.literal('changed'),
  image_id: z.string(),
  version: z.number().int(),
  base_version: z.number().int(),
  upserts: z.array(z.record(z.string(), z.unknown())),
  removed_ids: z.array(z.string()),
  by: z.string().nullable(),
  saved_at: z.string().optional(),
  omitted: z.literal(true).optional(),
});
export const LivePresence = z.object({ type: z.literal('presence'), image_id: z.string(), peers: z.array(LivePeer) });
/**
 * Another socket's cursor, selection or overlap (LiveOverlap: `user_id` edited these shapes too,
 * and the edit saved before theirs arrived, possibly the receiver's, was kept), relayed.
 */
export const LivePeerMessage = z.union([
  z.object({ type: z.literal('peer'), image_id: z.string(), user_id: z.string(), cursor: z.object({ x: z.number(), y: z.number() }) }),
  z.object({ type: z.literal('peer'), image_id: z.string(), user_id: z.string(), selection: z.array(z.string()) }),
  z.object({ type: z.literal('peer'), image_id: z.string(), user_id: z.string(), overlap: z.array(z.string()) }),
]);

/**
 * Another person's unsaved edit of a joined image (their client's `draft`, relayed as it came, with
 * who sent it): show it now as theirs and unsaved, never save it, never put it in the undo history.
 * Their `changed` confirms it; without one within LIVE_DRAFT_TIMEOUT_MS, or LIVE_DRAFT_LEAVE_GRACE_MS
 * after they leave the image, drop it and show what the server holds. Sent to the image's sockets but the sender (a client ignores its own user's), never to watchers.
 */
export const LiveDraftMessage = z.object({
  type: z.literal('draft'),
  image_id: z.string(),
  user_id: z.string(),
  base_version: z.number().int(),
  upserts: z.array(z.record(z.string(), z.unknown())),
  removed_ids: z.array(z.string()),
});
export type LiveDraftMessage = z.infer<typeof LiveDraftMessage>;

/**
 * The answer to `watch`: each watched image the caller may read, with the people on it (empty:
 * nobody); the others were answered `not_found`. `presence` follows for these images on every change.
 */
export const LiveWatching = z.object({ type: z.literal('watching'), project_id: z.string(), images: z.array(z.object({ image_id: z.string(), peers: z.array(LivePeer) })) });

/** The answer to `watch_project`: the socket now hears `project_changed` for this project (null: for none). */
export const LiveWatchingProject = z.object({ type: z.literal('watching_project'), project_id: z.string().nullable() });
/** Why a project's images changed: `import_finished`, an import ended (done, failed or cancelled: what it added stays). */
export const LIVE_PROJECT_CHANGES = ['import_finished'] as const;
export type LiveProjectChange = (typeof LIVE_PROJECT_CHANGES)[number];
/**
 * The watched project's images changed in bulk: reload its images list and counts. At most one per
 * LIVE_PROJECT_CHANGED_MIN_MS per project (changes within it come together, as the last one).
 */
export const LiveProjectChanged = z.object({ type: z.literal('project_changed'), project_id: z.string(), reason: z.enum(LIVE_PROJECT_CHANGES) });

/**
 * The issues or comments of a joined image changed (issue 29: opened, commented, resolved or
 * reopened, through any server process): load GET /api/v1/images/{image_id}/issues again.
 */
export const LiveIssuesChanged = z.object({ type: z.literal('issues'), image_id: z.string() });

export const LiveServerMessage = z.union([LiveIssuesChanged, LiveReady, LiveJoined, LiveError, LiveChanged, LiveDraftMessage, LivePresence, LivePeerMessage, LiveWatching, LiveWatchingProject, LiveProjectChanged]);
export type LiveServerMessage = z.infer<typeof LiveServerMessage>;
export type LiveChangedMessage = z.infer<typeof LiveChanged>;
export type LiveErrorMessage = z.infer<typeof LiveError>;
export type LiveWatchingMessage = z.infer<typeof LiveWatching>;

/**
 * Parses one client message: its size, JSON, a known `type` and the fields' types (unknown fields
 * are refused). `tooLarge` is reported apart because the server closes the socket for it.
 */
export function parseClientMessage(text: string): { ok: true; message: LiveClientMessage } | { ok: false; tooLarge: boolean; error: string } {
  // Cheap bound first: a string of n UTF-16 units holds at most 3n UTF-8 bytes.
  if (text.length * 3 > LIVE_MAX_MESSAGE_BYTES && new TextEncoder().encode(text).length > LIVE_MAX_MESSAGE_BYTES) {
    return { ok: false, tooLarge: true, error: `A message may be at most ${LIVE_MAX_MESSAGE_BYTES} bytes` };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, tooLarge: false, error: 'The message is not JSON' };
  }
  const parsed = LiveClientMessage.safeParse(raw);
  if (parsed.success) return { ok: true, message: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  return { ok: false, tooLarge: false, error: `Invalid message: ${where}${issue?.message ?? 'bad value'}`.slice(0, 300) };
}
