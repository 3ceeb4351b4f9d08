// The legacy event stream, GET /lobbies-sse/{id}/events?player-id=&lobby-config= (the Unity SDK's SSE):
// the v3 lobby stream machinery (apps/gateway/src/lobby-streams) in the legacy dialect. Events `connected`
// ({message, lobby}), `lobby:updated` (the legacy lobby) and `lobby:deleted` ({lobbyId}); v3's
// `match_found` and `queue_stats` are left out (the legacy lobby's status and matchmaking fields say it),
// and the keep-alive is an SSE comment, which every client skips.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { LobbyView } from '@spawnpoint/domain';
import { LobbyStreamEvent, LobbyUpdate, OpenedLobbyStream, Principal, SUBJECTS } from '@spawnpoint/proto';
import { parse } from '../http/validation';
import { eventId, LobbyStreams, sseFrame, StreamDialect } from '../lobby-streams';
import { LegacyLobbies } from './legacy-lobbies';
import { toLegacyLobby } from './legacy-lobby';
import { LegacyEventsQuery, LegacyLobbyParams } from './schemas';

const CONNECTED_MESSAGE = 'Connected to lobby events';

/** The legacy dialect of a configuration's streams (its timeout is part of the lobby): one per timeout, so an update is framed once. */
const dialects = new Map<number, StreamDialect>();

export function legacyDialect(timeout: number): StreamDialect {
  let d = dialects.get(timeout);
  if (d) return d;
  const updated = (id: string, lobby: unknown) => sseFrame(id, 'lobby:updated', toLegacyLobby(lobby as LobbyView, timeout));
  const deleted = (id: string, lobbyId: string) => sseFrame(id, 'lobby:deleted', { lobbyId });
  d = {
    connected: (o: OpenedLobbyStream & { lobbyId: string }) =>
      sseFrame(eventId(o.lobbyId, o.revision), 'connected', { message: CONNECTED_MESSAGE, lobby: toLegacyLobby(o.lobby as LobbyView, timeout) }),
    replayed: (e: LobbyStreamEvent) => {
      if (e.event === 'lobby_updated') return updated(e.id, e.data);
      if (e.event === 'lobby_deleted') return deleted(e.id, (e.data as { id: string }).id);
      return '';
    },
    update: (u: LobbyUpdate) => (u.kind === 'deleted' ? deleted(eventId(u.lobbyId, u.revision), u.lobbyId) : updated(eventId(u.lobbyId, u.revision), u.lobby)),
    ping: () => ': ping\n\n',
    matchEvents: false,
  };
  dialects.set(timeout, d);
  return d;
}

/** The stream route (no rate-limit bucket, as v3 streams; the key's cap on open streams, 429): 404 when the player is not in that lobby. */
export function registerLegacyEvents(app: FastifyInstance, h: LegacyLobbies, streams: LobbyStreams): void {
  app.get('/lobbies-sse/:id/events', async (req, reply) => {
    const q = parse(LegacyEventsQuery, req.query, 'query');
    const { principal } = await h.authenticate(req, q.api_key);
    const slot = streams.quota.reserve(principal);
    try {
      await openLegacyStream(req, reply, principal, q, h, streams);
      slot.holdUntilClosed(reply.raw);
    } catch (err) {
      slot.release();
      throw err;
    }
  });
}

async function openLegacyStream(
  req: FastifyRequest, reply: FastifyReply, principal: Principal, q: LegacyEventsQuery, h: LegacyLobbies, streams: LobbyStreams,
): Promise<void> {
  const { id } = parse(LegacyLobbyParams, req.params, 'path');
  const playerId = q['player-id'];
  await h.verify(req, principal, playerId, q['client-auth-token']);
  const ctx = { projectId: principal.projectId, config: q['lobby-config'] };
  const lastEventId = req.headers['last-event-id'];
  const opened = await h.request(SUBJECTS.lobbies.openStream, {
    ...ctx, playerId, lobbyId: id, ...(typeof lastEventId === 'string' ? { lastEventId } : {}),
  });
  const dialect = legacyDialect(await h.timeout(ctx));
  reply.hijack();
  streams.open(reply.raw, { projectId: principal.projectId, playerId }, opened, dialect);
}
