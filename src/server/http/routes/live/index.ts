// /api/v1/live: the live co-editing WebSocket (issue 20, docs/live.md). The socket
// authenticates in its first message (a browser cannot set headers on a WebSocket), so the route
// is public to the HTTP guard and the hub (src/server/live) checks the credential with the guard's
// own `authenticate`. A plain GET answers 426 upgrade_required.
import type { FastifyPluginAsync } from 'fastify';
import type {} from '@fastify/websocket';
import type { AppContext } from '../../../context';
import { apiError } from '../../../errors';
import { LiveHub } from '../../../live';
import {
  LIVE_AUTH_TIMEOUT_MS,
  LIVE_CLOSE,
  LIVE_MAX_CHANGED_BYTES,
  LIVE_MAX_CONTROL_MESSAGES_PER_SECOND,
  LIVE_MAX_JOINS_PER_SOCKET,
  LIVE_MAX_MESSAGE_BYTES,
  LIVE_MAX_PEER_MESSAGES_PER_SECOND,
  LIVE_MAX_SELECTION_IDS,
} from '../../../../contract/live';

/** The protocol, as the OpenAPI document shows it (docs/live.md says the same at more length). */
export function liveDescription(ctx: AppContext): string {
  return [
    'WebSocket (GET with `Upgrade: websocket`; a plain GET answers 426 `upgrade_required`). Messages are JSON text; schemas in src/contract/live.ts. Saving stays on HTTP (save-changes): the socket carries notifications and presence only.',
    `Client to server: \`{"type":"auth","token"}\` (an access token or an API key; the first message, within ${LIVE_AUTH_TIMEOUT_MS / 1000} s; send it again on the open socket when the token is refreshed) -> \`{"type":"ready","user_id"}\`. \`{"type":"join","image_id","project_id"}\` -> \`{"type":"joined","image_id","version","peers":[{"user_id","name","color","can_edit"}]}\`, or \`{"type":"error","code":"not_found","image_id"}\` for an image of another organization or one the caller cannot read. \`{"type":"leave","image_id"}\`. \`{"type":"cursor","image_id","x","y"}\` (image pixels) and \`{"type":"selection","image_id","ids"}\` (at most ${LIVE_MAX_SELECTION_IDS} ids) are relayed to the image's other sockets as \`{"type":"peer","image_id","user_id","cursor":{"x","y"}}\` / \`{"type":"peer","image_id","user_id","selection":[...]}\`; a selection is presence only, whatever the role (a viewer's has can_edit false). \`{"type":"overlap","image_id","ids"}\` (1 to ${LIVE_MAX_SELECTION_IDS} ids; only from someone who may edit the image, a viewer's is ignored): the sender's save met a 409 and its merge kept the server's, later, shape of these ids, dropping the sender's change of them; relayed as \`{"type":"peer","image_id","user_id","overlap":[...]}\` so the person whose edit was kept is told too. A peer's \`color\` is distinct among the people on the image (up to ten) and the same in every list and on every server process. \`{"type":"watch","project_id","image_ids":[...]}\` (at most ${LIVE_MAX_JOINS_PER_SOCKET} ids, replacing the socket's watched set; [] ends it): presence only, without joining, for lists of images (the Data tab) -> \`not_found\` errors for ids the caller cannot read, then \`{"type":"watching","project_id","images":[{"image_id","peers"}]}\`, then \`presence\` for a watched image when its people change; a watcher is nobody's peer and gets no changed, cursors or selections. \`{"type":"watch_project","project_id"}\` (one project per socket, null ends it; images.read, else \`{"type":"error","code":"not_found","project_id"}\`) -> \`{"type":"watching_project","project_id"}\`, then \`{"type":"project_changed","project_id","reason":"import_finished"}\` when an import into it ends (any process; at most one a second per project): reload the project's images and counts.`,
    `Server to client: after every committed change of a joined image (any write path, any server process; the author's own sockets too): \`{"type":"changed","image_id","version","base_version","upserts","removed_ids","by"}\`; when the change is larger than ${LIVE_MAX_CHANGED_BYTES / 1024 / 1024} MB the lists are empty and \`omitted\` is true. A client whose version is not \`base_version\` (a gap, a reconnect) loads GET /api/v1/annotations/changes/{image_id}?since=<its version> (410 history_expired: load-data). \`{"type":"presence","image_id","peers"}\` on every join and leave, and when a socket drops (pings every ${ctx.config.live.pingMs / 1000} s). \`{"type":"error","code","image_id"?,"message"?}\` with code invalid_message, not_authenticated, not_joined, too_many_joins or rate_limited.`,
    `Limits: messages of at most ${LIVE_MAX_MESSAGE_BYTES / 1024} KB (larger: close ${LIVE_CLOSE.tooLarge}); cursor, selection and overlap at most ${LIVE_MAX_PEER_MESSAGES_PER_SECOND} a second per socket together (the rest dropped, an overlap answered rate_limited); auth, join, leave and watch at most ${LIVE_MAX_CONTROL_MESSAGES_PER_SECOND} a second (the rest answered rate_limited), malformed messages counted among them (answered invalid_message; past the limit the socket is closed 1008); ${LIVE_MAX_JOINS_PER_SOCKET} images joined and ${LIVE_MAX_JOINS_PER_SOCKET} watched per socket; ${ctx.config.live.maxSocketsPerUser} sockets per user per server process, an API key's counted against the person who created it (close ${LIVE_CLOSE.tooManySockets}).`,
    `Close codes: ${LIVE_CLOSE.unauthorized}: no auth in time, a first message that is not auth, a bad, expired or revoked credential, or a new auth for another user; ${LIVE_CLOSE.forbidden}: read access to a joined image was lost. The credential and the access are checked again every ${ctx.config.live.recheckMs / 1000} s.`,
  ].join('\n\n');
}

export const liveRoutes = (ctx: AppContext): FastifyPluginAsync => async (fastify) => {
  const hub = new LiveHub(ctx);
  fastify.addHook('onReady', () => hub.start());
  fastify.addHook('preClose', () => hub.stop());

  fastify.route({
    method: 'GET',
    url: '/live',
    config: { public: true },
    schema: { tags: ['live'], summary: 'Live co-editing WebSocket: changed notifications and presence', description: liveDescription(ctx), security: [] },
    handler: async () => {
      throw apiError('upgrade_required');
    },
    wsHandler: (socket) => hub.accept(socket),
  });
};
