// The legacy routes over a fake bus: which subjects they ask, with what, and what they answer.
import type { FastifyInstance } from 'fastify';
import type { LobbyView } from '@spawnpoint/domain';
import { RemoteError } from '@spawnpoint/messaging';
import { SUBJECTS } from '@spawnpoint/proto';
import { RateLimiter } from '../http/rate-limiter';
import { buildLegacyLobbyApp } from './legacy-lobby-api';

const ID = '6f0c6f5e-0000-4000-8000-000000000001';
const UUID_PLAYER = '6f0c6f5e-0000-4000-8000-0000000000ff';
const principal = { projectId: 'p1', kind: 'client', plan: 'pro', rateLimits: { read_per_second: 100, write_per_second: 10, player_per_second: 10 }, clientKeyServerControl: true };
const lobby = (over: Partial<LobbyView> = {}): LobbyView => ({
  id: ID, code: null, config: 'default', name: 'L', status: 'waiting', host: 'alice', maxPlayers: 8, currentPlayers: 1, region: 'us-east', isPrivate: false,
  allowLateJoin: false, settings: {}, players: [{ id: 'alice', state: {}, isHost: true }], server: null, matchmaking: null, createdAt: 't0', updatedAt: 't1', ...over,
});

describe('legacy lobby API routes', () => {
  let app: FastifyInstance;
  let calls: { subject: string; payload: any }[];
  let answers: Record<string, (payload: any) => unknown>;
  let verified: { playerId: string; token: string | undefined }[];
  let rejectTokens: boolean;

  beforeEach(() => {
    calls = [];
    verified = [];
    rejectTokens = false;
    answers = { [SUBJECTS.projects.getSettings]: () => ({ lobby_configs: [{ name: 'ranked', timeout: 900 }] }) };
    const bus = {
      request: async (subject: string, payload: unknown) => {
        calls.push({ subject, payload });
        const answer = answers[subject];
        if (!answer) throw new RemoteError({ error: `no answer for ${subject}`, status: 500 });
        return answer(payload);
      },
    };
    const keys = { principal: async (k: string) => ({ principal: k === 'good' ? principal : k === 'server' ? { ...principal, kind: 'server' } : null, keyHash: 'h' }) };
    const identity = {
      verify: async (_projectId: string, playerId: string, token: string | undefined) => {
        verified.push({ playerId, token });
        if (rejectTokens) throw new RemoteError({ error: 'x-player-token does not belong to the player named by x-player-id', status: 401 });
      },
    };
    app = buildLegacyLobbyApp({ bus: bus as never, keys: keys as never, identity: identity as never, port: 0, host: '127.0.0.1' });
  });
  afterEach(() => app.close());

  const send = (method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH', url: string, body?: unknown, headers: Record<string, string> = {}) =>
    app.inject({ method, url, headers: { 'api-key': 'good', ...headers }, ...(body !== undefined ? { payload: body as object } : {}) });
  const subjects = () => calls.map((c) => c.subject).filter((s) => s !== SUBJECTS.projects.getSettings);

  it('401 without a known api-key, 422 without name, 404/405 elsewhere', async () => {
    expect((await app.inject({ method: 'GET', url: '/lobbies?name=default' })).statusCode).toBe(401);
    const wrong = await send('GET', '/lobbies?name=default', undefined, { 'api-key': 'bad' });
    expect(wrong.json()).toEqual({ error: 'Invalid or missing API key', status: 401 });
    const missing = await send('GET', '/lobbies');
    expect(missing.statusCode).toBe(422);
    expect(missing.json().detail[0]).toMatchObject({ loc: ['query', 'name'], type: 'missing' });
    expect((await send('GET', '/nothing')).json()).toEqual({ error: 'Not found', status: 404 });
    const notAllowed = await send('DELETE', '/lobbies?name=default');
    expect(notAllowed.statusCode).toBe(405);
    expect(notAllowed.headers.allow).toBe('GET, POST');
    expect((await send('PATCH', `/lobbies/${ID}?name=default`)).headers.allow).toBe('GET, PUT, DELETE');
    expect((await send('GET', `/lobbies/${ID}/heartbeat?name=default`)).headers.allow).toBe('POST');
    const preflight = await app.inject({ method: 'OPTIONS', url: '/lobbies?name=default', headers: { origin: 'https://game.example', 'access-control-request-method': 'PUT' } });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-headers']).toContain('client-auth-token');
    expect(wrong.headers['access-control-allow-origin']).toBe('*');
  });

  it('lists every page, private lobbies included unless public (or publicOnly)', async () => {
    answers[SUBJECTS.lobbies.browse] = (p) => (p.offset ? { lobbies: [lobby({ id: 'b' })], total: 2, limit: 100, offset: 1, hasMore: false } : { lobbies: [lobby({ id: 'a' })], total: 2, limit: 100, offset: 0, hasMore: true });
    const res = await send('GET', '/lobbies?name=ranked');
    expect(res.statusCode).toBe(200);
    expect(res.json().map((l: { id: string; timeout: number }) => [l.id, l.timeout])).toEqual([['a', 900], ['b', 900]]);
    expect(calls.filter((c) => c.subject === SUBJECTS.lobbies.browse).map((c) => c.payload)).toEqual([
      { projectId: 'p1', config: 'ranked', limit: 100, offset: 0, includePrivate: true },
      { projectId: 'p1', config: 'ranked', limit: 100, offset: 1, includePrivate: true },
    ]);
    for (const flag of ['public=true', 'publicOnly=true', 'public=1']) {
      calls = [];
      await send('GET', `/lobbies?name=ranked&${flag}&cacheBuster=1`);
      expect(calls.find((c) => c.subject === SUBJECTS.lobbies.browse)!.payload.includePrivate).toBe(false);
    }
  });

  it('creates with the host as the player; privacy as asked (every lobby has a code); unknown fields ignored', async () => {
    answers[SUBJECTS.lobbies.create] = () => lobby({ code: 'ABC234' });
    const res = await send('POST', '/lobbies?name=default', { host: 'alice', name: 'Friday', isPrivate: false, useInviteCode: true, maxPlayers: 4, extra: 1 },
      { 'client-auth-token': 'tok' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ isPrivate: false, useInviteCode: true, inviteCode: 'ABC234', players: ['alice'], timeout: 300 });
    expect(calls.find((c) => c.subject === SUBJECTS.lobbies.create)!.payload).toEqual({
      projectId: 'p1', config: 'default', playerId: 'alice', body: { name: 'Friday', maxPlayers: 4, isPrivate: false },
    });
    expect(verified).toEqual([{ playerId: 'alice', token: 'tok' }]);
    expect((await send('POST', '/lobbies?name=default', { name: 'x' })).json().detail[0].loc).toEqual(['body', 'host']);
    expect((await send('POST', '/lobbies?name=default', { host: 'a', maxPlayers: 101 })).statusCode).toBe(422);
    answers[SUBJECTS.lobbies.create] = () => { throw new RemoteError({ error: 'player a is already in a lobby of config default', status: 409 }); };
    expect((await send('POST', '/lobbies?name=default', { host: 'a' })).json()).toEqual({ error: 'player a is already in a lobby of config default', status: 400 });
  });

  it('player writes of one key draw on a per-key bucket of 10 × player_per_second as well as the per-player one', async () => {
    // On a clock that stands still, nothing refills: 150 players creating a lobby each.
    await app.close();
    const bus = { request: async (subject: string) => (subject === SUBJECTS.lobbies.create ? lobby() : { lobby_configs: [] }) };
    const keys = { principal: async () => ({ principal, keyHash: 'h' }) };
    const identity = { verify: async () => undefined };
    app = buildLegacyLobbyApp({ bus: bus as never, keys: keys as never, identity: identity as never, limiter: new RateLimiter(() => 0), port: 0, host: '127.0.0.1' });
    const all = await Promise.all(Array.from({ length: 150 }, (_, i) => send('POST', '/lobbies?name=default', { host: `p${i}` })));
    const answersByStatus: Record<number, number> = {};
    for (const res of all) answersByStatus[res.statusCode] = (answersByStatus[res.statusCode] ?? 0) + 1;
    const refused = all.find((res) => res.statusCode === 429);
    expect(answersByStatus).toEqual({ 201: 100, 429: 50 });
    expect(refused!.headers['x-ratelimit-limit']).toBe('100');
    expect(refused!.json()).toEqual({ error: 'Rate limit exceeded', status: 429 });
  });

  it('a rejected client-auth-token is 401 and names the legacy header', async () => {
    rejectTokens = true;
    const res = await send('POST', '/lobbies?name=default', { host: 'alice' }, { 'client-auth-token': 'bad' });
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toContain('client-auth-token');
    expect(subjects()).toEqual([]);
  });

  it('PUT applies settings, player state, matchmaking, status and host in order, addressed to the lobby', async () => {
    answers[SUBJECTS.lobbies.getMine] = () => lobby();
    answers[SUBJECTS.lobbies.updateSettings] = () => lobby({ maxPlayers: 4 });
    answers[SUBJECTS.lobbies.updateMyState] = () => lobby({ maxPlayers: 4, players: [{ id: 'alice', state: { ready: true }, isHost: true }] });
    answers[SUBJECTS.lobbies.cancelMatchmaking] = () => lobby({ maxPlayers: 4 });
    answers[SUBJECTS.lobbies.start] = () => lobby({ status: 'starting' });
    answers[SUBJECTS.lobbies.transferHost] = () => lobby({ status: 'starting', host: 'bob' });
    const res = await send('PUT', `/lobbies/${ID}?name=default`, {
      requesterId: 'alice', settings: { maxPlayers: 4, useInviteCode: false, unknown: 1 }, playerState: { ready: true }, matchmaking: { action: 'cancel' },
      status: 'in_game', host: 'bob', sdkField: 'ignored',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ host: 'bob', status: 'waiting' });
    expect(subjects()).toEqual([
      SUBJECTS.lobbies.getMine, SUBJECTS.lobbies.updateSettings, SUBJECTS.lobbies.updateMyState, SUBJECTS.lobbies.cancelMatchmaking, SUBJECTS.lobbies.start,
      SUBJECTS.lobbies.transferHost,
    ]);
    const who = { projectId: 'p1', config: 'default', playerId: 'alice', lobbyId: ID };
    expect(calls.find((c) => c.subject === SUBJECTS.lobbies.updateSettings)!.payload).toEqual({ ...who, changes: { maxPlayers: 4 } });
    expect(calls.find((c) => c.subject === SUBJECTS.lobbies.updateMyState)!.payload).toEqual({ ...who, state: { ready: true } });
    expect(calls.find((c) => c.subject === SUBJECTS.lobbies.transferHost)!.payload).toEqual({ ...who, targetId: 'bob' });
    expect((await send('PUT', '/lobbies/not-a-uuid?name=default', { requesterId: 'alice' })).json().detail[0].loc).toEqual(['path', 'id']);
  });

  it("PUT takes the Unity SDK's top-level settings fields and nested settings.settings (nested wins), matchmaking start, and targetPlayerId", async () => {
    answers[SUBJECTS.lobbies.getMine] = () => lobby();
    for (const s of [SUBJECTS.lobbies.updateSettings, SUBJECTS.lobbies.updateMyState, SUBJECTS.lobbies.startMatchmaking]) answers[s] = () => lobby();
    const who = { projectId: 'p1', config: 'default', playerId: 'alice', lobbyId: ID };
    await send('PUT', `/lobbies/${ID}?name=default`, { requesterId: 'alice', name: 'Top', maxPlayers: 6, isPrivate: true, settings: { settings: { map: 'nuke' }, maxPlayers: 5 } });
    expect(calls.find((c) => c.subject === SUBJECTS.lobbies.updateSettings)!.payload).toEqual({ ...who, changes: { name: 'Top', maxPlayers: 5, isPrivate: true, settings: { map: 'nuke' } } });
    await send('PUT', `/lobbies/${ID}?name=default`, { requesterId: 'alice', playerState: { team: 'red' }, targetPlayerId: 'bob' });
    expect(calls.filter((c) => c.subject === SUBJECTS.lobbies.updateMyState).at(-1)!.payload).toEqual({ ...who, state: { team: 'red' }, targetId: 'bob' });
    await send('PUT', `/lobbies/${ID}?name=default`, { requesterId: 'alice', playerState: { team: 'red' }, targetPlayerId: 'alice' });
    expect(calls.filter((c) => c.subject === SUBJECTS.lobbies.updateMyState).at(-1)!.payload).toEqual({ ...who, state: { team: 'red' } });
    expect((await send('PUT', `/lobbies/${ID}?name=default`, { requesterId: 'alice', matchmaking: { action: 'start', mode: 'duel' } })).statusCode).toBe(200);
    expect(calls.find((c) => c.subject === SUBJECTS.lobbies.startMatchmaking)!.payload).toEqual({ ...who, mode: 'duel' });
    const noMode = await send('PUT', `/lobbies/${ID}?name=default`, { requesterId: 'alice', matchmaking: { action: 'start' } });
    expect(noMode.statusCode).toBe(422);
    expect(noMode.json().detail[0].loc).toEqual(['body', 'matchmaking', 'mode']);
    expect((await send('PUT', `/lobbies/${ID}?name=default`, { requesterId: 'alice', matchmaking: { action: 'pause' } })).json().detail[0].loc).toEqual(['body', 'matchmaking', 'action']);
  });

  it('GET /lobbies/{id} finds a lobby by id, else the lobby of the player with that id; GET players lists the ids', async () => {
    answers[SUBJECTS.lobbies.adminGet] = (p) => {
      if (p.lobbyId === ID) return lobby({ players: [{ id: 'alice', state: {}, isHost: true }, { id: 'bob', state: {}, isHost: false }] });
      throw new RemoteError({ error: 'lobby not found', status: 404 });
    };
    answers[SUBJECTS.lobbies.getMine] = (p) => {
      if (p.playerId === 'bob' || p.playerId === UUID_PLAYER) return lobby();
      throw new RemoteError({ error: `player ${p.playerId} is not in a lobby of config default`, status: 404 });
    };
    expect((await send('GET', `/lobbies/${ID}?name=default`)).json()).toMatchObject({ id: ID, players: ['alice', 'bob'] });
    expect((await send('GET', '/lobbies/bob?name=default')).json()).toMatchObject({ id: ID });
    expect((await send('GET', `/lobbies/${UUID_PLAYER}?name=default`)).statusCode).toBe(200);
    const none = await send('GET', '/lobbies/carol?name=default');
    expect(none.statusCode).toBe(404);
    expect(none.json()).toMatchObject({ status: 404 });
    expect(calls.filter((c) => c.subject === SUBJECTS.lobbies.getMine).map((c) => c.payload)).toEqual([
      { projectId: 'p1', config: 'default', playerId: 'bob' }, { projectId: 'p1', config: 'default', playerId: UUID_PLAYER },
      { projectId: 'p1', config: 'default', playerId: 'carol' },
    ]);
    const players = await send('GET', `/lobbies/${ID}/players?name=default`);
    expect(players.json()).toEqual(['alice', 'bob']);
    expect((await send('GET', `/lobbies/${UUID_PLAYER}/players?name=default`)).statusCode).toBe(404);
  });

  it('DELETE /lobbies/{id}: the host (body playerId) closes it, 204; the server key may delete without a player; a client key must name one', async () => {
    answers[SUBJECTS.lobbies.close] = (p) => {
      if (p.playerId !== 'alice') throw new RemoteError({ error: 'only the host can finish the lobby', status: 403 });
      return { status: 'lobby_deleted', id: ID };
    };
    answers[SUBJECTS.lobbies.adminDelete] = () => ({ status: 'lobby_deleted', id: ID });
    const done = await send('DELETE', `/lobbies/${ID}?name=default`, { playerId: 'alice' });
    expect(done.statusCode).toBe(204);
    expect(done.body).toBe('');
    expect(calls.find((c) => c.subject === SUBJECTS.lobbies.close)!.payload).toEqual({ projectId: 'p1', config: 'default', playerId: 'alice', lobbyId: ID });
    expect((await send('DELETE', `/lobbies/${ID}?name=default`, { playerId: 'bob' })).statusCode).toBe(403);
    expect((await send('DELETE', `/lobbies/${ID}?name=default`)).json().detail[0].loc).toEqual(['body', 'playerId']);
    expect((await send('DELETE', `/lobbies/${ID}?name=default`, undefined, { 'api-key': 'server' })).statusCode).toBe(204);
    expect(subjects().at(-1)).toBe(SUBJECTS.lobbies.adminDelete);
    // a body without its playerId (unknown fields are ignored) is no admin delete
    const mangled = await send('DELETE', `/lobbies/${ID}?name=default`, { '\ufffd': 1 }, { 'api-key': 'server' });
    expect(mangled.json().detail[0].loc).toEqual(['body', 'playerId']);
    expect(subjects().at(-1)).toBe(SUBJECTS.lobbies.adminDelete);
    expect(subjects().filter((s) => s === SUBJECTS.lobbies.adminDelete)).toHaveLength(1);
  });

  it("POST /lobbies/{id}/heartbeat {playerId} is the player's v3 heartbeat, 204", async () => {
    answers[SUBJECTS.lobbies.heartbeat] = () => ({});
    const res = await send('POST', `/lobbies/${ID}/heartbeat?name=default`, { playerId: 'bob' }, { 'client-auth-token': 'tok' });
    expect(res.statusCode).toBe(204);
    expect(calls.find((c) => c.subject === SUBJECTS.lobbies.heartbeat)!.payload).toEqual({ projectId: 'p1', config: 'default', playerId: 'bob', lobbyId: ID });
    expect(verified).toEqual([{ playerId: 'bob', token: 'tok' }]);
    expect((await send('POST', `/lobbies/${ID}/heartbeat?name=default`, {})).json().detail[0].loc).toEqual(['body', 'playerId']);
  });

  it('PUT status waiting ends an in_game match; finished closes and answers the last lobby as finished', async () => {
    answers[SUBJECTS.lobbies.getMine] = () => lobby({ status: 'in_game', server: { instance_id: 's' } });
    answers[SUBJECTS.lobbies.endMatch] = () => lobby();
    answers[SUBJECTS.lobbies.close] = () => ({ status: 'lobby_deleted', id: ID });
    expect((await send('PUT', `/lobbies/${ID}?name=default`, { requesterId: 'alice', status: 'waiting' })).json().status).toBe('waiting');
    const fin = await send('PUT', `/lobbies/${ID}?name=default`, { requesterId: 'alice', status: 'finished' });
    expect(fin.json()).toMatchObject({ id: ID, status: 'finished', gameServer: null });
    expect(subjects()).toEqual([SUBJECTS.lobbies.getMine, SUBJECTS.lobbies.endMatch, SUBJECTS.lobbies.getMine, SUBJECTS.lobbies.close]);
  });

  it('joins by id and by code with metadata as the player state; statuses as published (already in a lobby 400, invalid code 400)', async () => {
    answers[SUBJECTS.lobbies.join] = () => lobby();
    expect((await send('POST', `/lobbies/${ID}/players?name=default`, { playerId: 'bob', metadata: { team: 'red' } })).statusCode).toBe(200);
    expect((await send('POST', '/lobbies/code/ABC234/players?name=default', { playerId: 'bob' })).statusCode).toBe(200);
    expect(calls.filter((c) => c.subject === SUBJECTS.lobbies.join).map((c) => c.payload)).toEqual([
      { projectId: 'p1', config: 'default', playerId: 'bob', lobbyId: ID, state: { team: 'red' } },
      { projectId: 'p1', config: 'default', playerId: 'bob', code: 'ABC234' },
    ]);
    answers[SUBJECTS.lobbies.join] = () => { throw new RemoteError({ error: 'already in a lobby', status: 409 }); };
    expect((await send('POST', `/lobbies/${ID}/players?name=default`, { playerId: 'bob' })).statusCode).toBe(400);
    expect((await send('POST', '/lobbies/code/ABC234/players?name=default', { playerId: 'bob' })).statusCode).toBe(400);
    answers[SUBJECTS.lobbies.join] = () => { throw new RemoteError({ error: 'lobby not found', status: 404 }); };
    expect((await send('POST', `/lobbies/${ID}/players?name=default`, { playerId: 'bob' })).statusCode).toBe(404);
    answers[SUBJECTS.lobbies.join] = () => { throw new RemoteError({ error: 'lobby with this invite code not found', status: 404 }); };
    expect((await send('POST', '/lobbies/code/ZZZZZZ/players?name=default', { playerId: 'bob' })).json()).toEqual({ error: 'lobby with this invite code not found', status: 400 });
    answers[SUBJECTS.lobbies.join] = () => { throw new RemoteError({ error: 'lobby configuration nope not found', status: 404 }); };
    expect((await send('POST', '/lobbies/code/ZZZZZZ/players?name=nope', { playerId: 'bob' })).statusCode).toBe(404);
  });

  it('DELETE kicks with isKick, lets a player leave itself (204 when the lobby went with it), and refuses removing another without isKick', async () => {
    answers[SUBJECTS.lobbies.kick] = () => lobby();
    answers[SUBJECTS.lobbies.leave] = () => ({ status: 'left', lobbyId: ID });
    answers[SUBJECTS.lobbies.adminGet] = () => { throw new RemoteError({ error: 'lobby not found', status: 404 }); };
    expect((await send('DELETE', `/lobbies/${ID}/players/bob?name=default&requesterId=alice&isKick=true`)).statusCode).toBe(200);
    expect(calls.find((c) => c.subject === SUBJECTS.lobbies.kick)!.payload).toEqual({ projectId: 'p1', config: 'default', playerId: 'alice', lobbyId: ID, targetId: 'bob' });
    expect((await send('DELETE', `/lobbies/${ID}/players/bob?name=default&requesterId=alice`)).statusCode).toBe(403);
    const missing = await send('DELETE', `/lobbies/${ID}/players/bob?name=default`);
    expect(missing.json().detail[0].loc).toEqual(['query', 'requesterId']);
    const gone = await send('DELETE', `/lobbies/${ID}/players/bob?name=default&requesterId=bob&isKick=false`);
    expect(gone.statusCode).toBe(204);
    expect(gone.body).toBe('');
    answers[SUBJECTS.lobbies.adminGet] = () => lobby();
    const left = await send('DELETE', `/lobbies/${ID}/players/bob?name=default&requesterId=bob&isKick=false`);
    expect(left.statusCode).toBe(200);
    expect(left.json()).toMatchObject({ id: ID, players: ['alice'] });
  });
});
