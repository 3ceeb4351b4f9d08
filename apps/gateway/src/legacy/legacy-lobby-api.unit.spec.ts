// The legacy routes over a fake bus: which subjects they ask, with what, and what they answer.
import type { FastifyInstance } from 'fastify';
import type { LobbyView } from '@spawnpoint/domain';
import { RemoteError } from '@spawnpoint/messaging';
import { SUBJECTS } from '@spawnpoint/proto';
import { RateLimiter } from '../http/rate-limiter';
import { buildLegacyLobbyApp } from './legacy-lobby-api';

const ID = '6f0c6f5e-0000-4000-8000-000000000001';
const principal = { projectId: 'p1', kind: 'client', plan: 'pro', rateLimits: { read_per_second: 100, write_per_second: 10, player_per_second: 10 }, clientKeyServerControl: true };
const lobby = (over: Partial<LobbyView> = {}): LobbyView => ({
  id: ID, code: null, config: 'default', name: 'L', status: 'waiting', host: 'alice', maxPlayers: 8, currentPlayers: 1, region: 'us-east', isPrivate: false,
  allowLateJoin: false, settings: {}, players: [{ id: 'alice', state: {}, isHost: true }], server: null, createdAt: 't0', updatedAt: 't1', ...over,
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
    const keys = { principal: async (k: string) => ({ principal: k === 'good' ? principal : null, keyHash: 'h' }) };
    const identity = {
      verify: async (_projectId: string, playerId: string, token: string | undefined) => {
        verified.push({ playerId, token });
        if (rejectTokens) throw new RemoteError({ error: 'x-player-token does not belong to the player named by x-player-id', status: 401 });
      },
    };
    app = buildLegacyLobbyApp({ bus: bus as never, keys: keys as never, identity: identity as never, port: 0, host: '127.0.0.1' });
  });
  afterEach(() => app.close());

  const send = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, headers: Record<string, string> = {}) =>
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
    const preflight = await app.inject({ method: 'OPTIONS', url: '/lobbies?name=default', headers: { origin: 'https://game.example', 'access-control-request-method': 'PUT' } });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-headers']).toContain('client-auth-token');
    expect(wrong.headers['access-control-allow-origin']).toBe('*');
  });

  it('lists every page, private lobbies included unless publicOnly', async () => {
    answers[SUBJECTS.lobbies.browse] = (p) => (p.next_token ? { lobbies: [lobby({ id: 'b' })], next_token: null } : { lobbies: [lobby({ id: 'a' })], next_token: 'n1' });
    const res = await send('GET', '/lobbies?name=ranked');
    expect(res.statusCode).toBe(200);
    expect(res.json().map((l: { id: string; timeout: number }) => [l.id, l.timeout])).toEqual([['a', 900], ['b', 900]]);
    expect(calls.filter((c) => c.subject === SUBJECTS.lobbies.browse).map((c) => c.payload)).toEqual([
      { projectId: 'p1', config: 'ranked', limit: 100, includePrivate: true },
      { projectId: 'p1', config: 'ranked', limit: 100, includePrivate: true, next_token: 'n1' },
    ]);
    calls = [];
    await send('GET', '/lobbies?name=ranked&publicOnly=true');
    expect(calls.find((c) => c.subject === SUBJECTS.lobbies.browse)!.payload.includePrivate).toBe(false);
  });

  it('creates with the host as the player; useInviteCode makes it private', async () => {
    answers[SUBJECTS.lobbies.create] = () => lobby({ isPrivate: true, code: 'ABC234' });
    const res = await send('POST', '/lobbies?name=default', { host: 'alice', name: 'Friday', useInviteCode: true, maxPlayers: 4 }, { 'client-auth-token': 'tok' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ useInviteCode: true, inviteCode: 'ABC234', players: ['alice'], timeout: 300 });
    expect(calls.find((c) => c.subject === SUBJECTS.lobbies.create)!.payload).toEqual({
      projectId: 'p1', config: 'default', playerId: 'alice', body: { name: 'Friday', maxPlayers: 4, isPrivate: true },
    });
    expect(verified).toEqual([{ playerId: 'alice', token: 'tok' }]);
    expect((await send('POST', '/lobbies?name=default', { name: 'x' })).json().detail[0].loc).toEqual(['body', 'host']);
    expect((await send('POST', '/lobbies?name=default', { host: 'a', maxPlayers: 101 })).statusCode).toBe(422);
    expect((await send('POST', '/lobbies?name=default', { host: 'a', extra: 1 })).json().detail[0].type).toBe('extra_forbidden');
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

  it('PUT applies settings, player state, status and host in order, addressed to the lobby', async () => {
    answers[SUBJECTS.lobbies.getMine] = () => lobby();
    answers[SUBJECTS.lobbies.updateSettings] = () => lobby({ maxPlayers: 4 });
    answers[SUBJECTS.lobbies.updateMyState] = () => lobby({ maxPlayers: 4, players: [{ id: 'alice', state: { ready: true }, isHost: true }] });
    answers[SUBJECTS.lobbies.start] = () => lobby({ status: 'starting' });
    answers[SUBJECTS.lobbies.transferHost] = () => lobby({ status: 'starting', host: 'bob' });
    const res = await send('PUT', `/lobbies/${ID}?name=default`, {
      requesterId: 'alice', settings: { maxPlayers: 4, useInviteCode: false }, playerState: { ready: true }, status: 'in_game', host: 'bob',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ host: 'bob', status: 'waiting' });
    expect(subjects()).toEqual([SUBJECTS.lobbies.getMine, SUBJECTS.lobbies.updateSettings, SUBJECTS.lobbies.updateMyState, SUBJECTS.lobbies.start, SUBJECTS.lobbies.transferHost]);
    const who = { projectId: 'p1', config: 'default', playerId: 'alice', lobbyId: ID };
    expect(calls.find((c) => c.subject === SUBJECTS.lobbies.updateSettings)!.payload).toEqual({ ...who, changes: { maxPlayers: 4, isPrivate: false } });
    expect(calls.find((c) => c.subject === SUBJECTS.lobbies.transferHost)!.payload).toEqual({ ...who, targetId: 'bob' });
    expect((await send('PUT', '/lobbies/not-a-uuid?name=default', { requesterId: 'alice' })).json().detail[0].loc).toEqual(['path', 'id']);
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

  it('joins by id and by code with metadata as the player state', async () => {
    answers[SUBJECTS.lobbies.join] = () => lobby();
    expect((await send('POST', `/lobbies/${ID}/players?name=default`, { playerId: 'bob', metadata: { team: 'red' } })).statusCode).toBe(200);
    expect((await send('POST', '/lobbies/code/ABC234/players?name=default', { playerId: 'bob' })).statusCode).toBe(200);
    expect(calls.filter((c) => c.subject === SUBJECTS.lobbies.join).map((c) => c.payload)).toEqual([
      { projectId: 'p1', config: 'default', playerId: 'bob', lobbyId: ID, state: { team: 'red' } },
      { projectId: 'p1', config: 'default', playerId: 'bob', code: 'ABC234' },
    ]);
  });

  it('DELETE kicks with isKick, lets a player leave itself, and refuses removing another without isKick', async () => {
    answers[SUBJECTS.lobbies.kick] = () => lobby();
    answers[SUBJECTS.lobbies.getMine] = () => lobby({ players: [{ id: 'alice', state: {}, isHost: true }, { id: 'bob', state: {}, isHost: false }] });
    answers[SUBJECTS.lobbies.leave] = () => ({ status: 'left', lobbyId: ID });
    answers[SUBJECTS.lobbies.adminGet] = () => { throw new RemoteError({ error: 'lobby not found', status: 404 }); };
    expect((await send('DELETE', `/lobbies/${ID}/players/bob?name=default&requesterId=alice&isKick=true`)).statusCode).toBe(200);
    expect(calls.find((c) => c.subject === SUBJECTS.lobbies.kick)!.payload).toEqual({ projectId: 'p1', config: 'default', playerId: 'alice', lobbyId: ID, targetId: 'bob' });
    expect((await send('DELETE', `/lobbies/${ID}/players/bob?name=default&requesterId=alice`)).statusCode).toBe(403);
    const missing = await send('DELETE', `/lobbies/${ID}/players/bob?name=default`);
    expect(missing.json().detail[0].loc).toEqual(['query', 'requesterId']);
    const left = await send('DELETE', `/lobbies/${ID}/players/bob?name=default&requesterId=bob&isKick=false`);
    expect(left.statusCode).toBe(200);
    expect(left.json()).toMatchObject({ status: 'finished', players: ['alice'], currentPlayers: 1 });
  });
});
