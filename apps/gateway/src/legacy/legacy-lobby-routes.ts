// The /lobbies routes of the legacy lobby API (the published document's, and the heartbeat its Unity SDK
// calls). Unknown body and query fields are ignored, as the hosted service ignores them.
import type { FastifyInstance } from 'fastify';
import { parseIgnoringUnknown as parse } from '../http/validation';
import { LegacyLobbies } from './legacy-lobbies';
import { updateLobby } from './legacy-update';
import {
  LegacyCodeParams, LegacyConfigQuery, LegacyCreateBody, LegacyJoinBody, LegacyKickQuery, LegacyListQuery, LegacyLobbyOrPlayerParams,
  LegacyLobbyParams, LegacyPlayerBody, LegacyPlayerParams, LegacyUpdateBody,
} from './schemas';

export function registerLegacyLobbyRoutes(app: FastifyInstance, h: LegacyLobbies): void {
  app.get('/lobbies', async (req, reply) => {
    const { principal, keyHash } = await h.authenticate(req);
    await h.read(reply, principal, keyHash);
    const q = parse(LegacyListQuery, req.query, 'query');
    return h.list({ projectId: principal.projectId, config: q.name }, (q.public ?? q.publicOnly) === true);
  });

  app.post('/lobbies', async (req, reply) => {
    const { principal } = await h.authenticate(req);
    const q = parse(LegacyConfigQuery, req.query, 'query');
    const b = parse(LegacyCreateBody, req.body, 'body');
    await h.player(req, reply, principal, b.host);
    const lobby = await h.create({ projectId: principal.projectId, config: q.name }, b);
    void reply.status(201);
    return lobby;
  });

  app.get('/lobbies/:id', async (req, reply) => {
    const { principal, keyHash } = await h.authenticate(req);
    await h.read(reply, principal, keyHash);
    const { id } = parse(LegacyLobbyOrPlayerParams, req.params, 'path');
    const q = parse(LegacyConfigQuery, req.query, 'query');
    return h.lobbyOrPlayersLobby({ projectId: principal.projectId, config: q.name }, id);
  });

  app.put('/lobbies/:id', async (req, reply) => {
    const { principal } = await h.authenticate(req);
    const { id } = parse(LegacyLobbyParams, req.params, 'path');
    const q = parse(LegacyConfigQuery, req.query, 'query');
    const b = parse(LegacyUpdateBody, req.body, 'body');
    await h.player(req, reply, principal, b.requesterId);
    return updateLobby(h, { projectId: principal.projectId, config: q.name }, id, b);
  });

  app.delete('/lobbies/:id', async (req, reply) => {
    const { principal, keyHash } = await h.authenticate(req);
    const { id } = parse(LegacyLobbyParams, req.params, 'path');
    const q = parse(LegacyConfigQuery, req.query, 'query');
    // The host names itself; the server key may send no body at all (an admin delete of any lobby). A body
    // always needs its playerId: with unknown fields ignored, a mangled one must not become an admin delete.
    const admin = principal.kind === 'server' && req.body === undefined;
    const playerId = admin ? undefined : parse(LegacyPlayerBody, req.body, 'body').playerId;
    if (playerId !== undefined) await h.player(req, reply, principal, playerId);
    else await h.limit(reply, { key: `${keyHash}:write`, limit: principal.rateLimits.write_per_second });
    await h.deleteLobby({ projectId: principal.projectId, config: q.name }, id, playerId);
    return reply.status(204).send();
  });

  app.get('/lobbies/:id/players', async (req, reply) => {
    const { principal, keyHash } = await h.authenticate(req);
    await h.read(reply, principal, keyHash);
    const { id } = parse(LegacyLobbyParams, req.params, 'path');
    const q = parse(LegacyConfigQuery, req.query, 'query');
    return h.players({ projectId: principal.projectId, config: q.name }, id);
  });

  app.post('/lobbies/:id/players', async (req, reply) => {
    const { principal } = await h.authenticate(req);
    const { id } = parse(LegacyLobbyParams, req.params, 'path');
    const q = parse(LegacyConfigQuery, req.query, 'query');
    const b = parse(LegacyJoinBody, req.body, 'body');
    await h.player(req, reply, principal, b.playerId);
    return h.join({ projectId: principal.projectId, config: q.name }, { lobbyId: id }, b);
  });

  app.post('/lobbies/code/:code/players', async (req, reply) => {
    const { principal } = await h.authenticate(req);
    const { code } = parse(LegacyCodeParams, req.params, 'path');
    const q = parse(LegacyConfigQuery, req.query, 'query');
    const b = parse(LegacyJoinBody, req.body, 'body');
    await h.player(req, reply, principal, b.playerId);
    return h.join({ projectId: principal.projectId, config: q.name }, { code }, b);
  });

  app.delete('/lobbies/:id/players/:playerId', async (req, reply) => {
    const { principal } = await h.authenticate(req);
    const { id, playerId } = parse(LegacyPlayerParams, req.params, 'path');
    const q = parse(LegacyKickQuery, req.query, 'query');
    await h.player(req, reply, principal, q.requesterId);
    const lobby = await h.remove({ projectId: principal.projectId, config: q.name }, id, playerId, q);
    // 204: the player left and the lobby went with it (the document's answer for that case).
    return lobby ?? reply.status(204).send();
  });

  // Not in the published document; the Unity SDK sends it (v3 heartbeat of that player). 204, as v3.
  app.post('/lobbies/:id/heartbeat', async (req, reply) => {
    const { principal } = await h.authenticate(req);
    const { id } = parse(LegacyLobbyParams, req.params, 'path');
    const q = parse(LegacyConfigQuery, req.query, 'query');
    const b = parse(LegacyPlayerBody, req.body, 'body');
    await h.player(req, reply, principal, b.playerId, false);
    await h.heartbeat({ projectId: principal.projectId, config: q.name }, id, b.playerId);
    return reply.status(204).send();
  });
}
