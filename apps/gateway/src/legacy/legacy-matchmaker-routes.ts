// The legacy matchmaker's routes on the legacy listener (docs/api.md "Legacy matchmaker"): api-key (client
// or server key), reads on the key's read bucket, ticket writes as player writes (per-player bucket and
// client-auth-token), ending a match on the key's write bucket. Bad input is 400, as the hosted service
// documents these routes (with our Error body and its detail).
import { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RemoteError } from '@spawnpoint/messaging';
import { checkContract, ContractClass, LegacyCreateTicketBody, LegacyMatchmakerParams, LegacyMatchmakerQuery, LegacyTicketQuery } from '@spawnpoint/proto';
import { httpErrorBody } from '../http/error-filter';
import { LegacyLobbies } from './legacy-lobbies';
import { LegacyMatchmaker } from './legacy-matchmaker';

/** Checks input like `parse`, but unknown fields are ignored and a refusal is 400. */
function input<T extends object>(contract: ContractClass<T>, value: unknown, where: 'body' | 'query' | 'path'): T {
  const checked = checkContract(contract, value ?? {}, [where], false);
  if (checked.ok) return checked.value;
  throw new RemoteError({ error: 'Invalid request parameters', status: 400, detail: checked.issues });
}

type Handler = (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** A validation refusal from further down (input limits, the services) is a 400 here too. */
const as400 = (handler: Handler): Handler => async (req, reply) => {
  try {
    return await handler(req, reply);
  } catch (err) {
    const body = httpErrorBody(err);
    if (body.status === 422) throw new RemoteError({ ...body, error: body.error === 'Validation error' ? 'Invalid request parameters' : body.error, status: 400 });
    throw err;
  }
};

/** Adds the /matchmaker routes to the legacy listener, over the lobby API's authentication and limits. */
export function registerLegacyMatchmaker(app: FastifyInstance, h: LegacyLobbies): void {
  const mm = new LegacyMatchmaker(h);

  const read = async (req: FastifyRequest, reply: FastifyReply) => {
    const { principal, keyHash } = await h.authenticate(req);
    await h.limit(reply, { key: `${keyHash}:read`, limit: principal.rateLimits.read_per_second });
    return principal;
  };

  app.post('/matchmaker/tickets', as400(async (req, reply) => {
    const { principal } = await h.authenticate(req);
    const b = input(LegacyCreateTicketBody, req.body, 'body');
    const playerId = LegacyMatchmaker.playerOf(b);
    await h.player(req, reply, principal, playerId);
    const matchmaker = await mm.matchmaker(principal.projectId, { matchmaker_name: b.matchmaker_name, matchmaker_id: b.matchmaker_id });
    const ticket = await mm.create(principal.projectId, matchmaker, playerId, b);
    void reply.status(201);
    return ticket;
  }));

  app.get('/matchmaker/tickets', as400(async (req, reply) => {
    const principal = await read(req, reply);
    const q = input(LegacyMatchmakerQuery, req.query, 'query');
    return mm.list(principal.projectId, await mm.matchmaker(principal.projectId, q));
  }));

  app.get('/matchmaker/tickets/:id', as400(async (req, reply) => {
    const principal = await read(req, reply);
    const { id } = input(LegacyMatchmakerParams, req.params, 'path');
    const q = input(LegacyTicketQuery, req.query, 'query');
    const matchmaker = await mm.matchmaker(principal.projectId, q);
    return q.type === 'player' ? mm.player(principal.projectId, matchmaker, id) : mm.ticket(principal.projectId, matchmaker, id);
  }));

  app.delete('/matchmaker/tickets/:id', as400(async (req, reply) => {
    const { principal } = await h.authenticate(req);
    const { id } = input(LegacyMatchmakerParams, req.params, 'path');
    const q = input(LegacyMatchmakerQuery, req.query, 'query');
    const matchmaker = await mm.matchmaker(principal.projectId, q);
    const lobby = await mm.ticketLobby(principal.projectId, matchmaker, id);
    await h.player(req, reply, principal, lobby.host);
    return mm.remove(principal.projectId, matchmaker, lobby);
  }));

  app.get('/matchmaker/matches', as400(async (req, reply) => {
    const principal = await read(req, reply);
    const q = input(LegacyMatchmakerQuery, req.query, 'query');
    return mm.matches(principal.projectId, await mm.matchmaker(principal.projectId, q));
  }));

  app.delete('/matchmaker/matches/:id', as400(async (req, reply) => {
    const { principal, keyHash } = await h.authenticate(req);
    await h.limit(reply, { key: `${keyHash}:write`, limit: principal.rateLimits.write_per_second });
    if (principal.kind === 'client' && !principal.clientKeyServerControl) {
      throw new RemoteError({ error: 'Client keys may not control servers in this project (client_key_server_control is false)', status: 403 });
    }
    const { id } = input(LegacyMatchmakerParams, req.params, 'path');
    const q = input(LegacyMatchmakerQuery, req.query, 'query');
    return mm.endMatch(principal.projectId, await mm.matchmaker(principal.projectId, q), id);
  }));
}
