// The legacy lobby API on its second listener (LEGACY_PORT), in both modes: the same lobbies as v3.
import { SignJWT } from 'jose';
import { client, eventually } from '../support/http';
import { Platform, startDistributed, startStandalone } from '../support/processes';
import { uploadSample } from './server-lifecycle';

type Api = ReturnType<typeof client>;
const as = (playerId: string) => ({ 'x-player-id': playerId });
const SECRET = 'e2e-legacy-lobbies-secret-0123456789abcdef';
const jwtFor = (sub: string) => new SignJWT({ sub }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('10m').sign(new TextEncoder().encode(SECRET));
const UNKNOWN = '00000000-0000-4000-8000-000000000000';
type Listed = { id: string };

function describeLegacyLobbies(mode: string, start: () => Promise<Platform>): void {
  describe(`legacy lobby API (${mode})`, () => {
    jest.setTimeout(180_000);
    let p: Platform;
    let server: Api;
    let api: Api;
    let legacy: Api;

    beforeAll(async () => {
      p = await start();
      server = client(p.baseUrl, p.serverKey);
      api = client(p.baseUrl, p.clientKey);
      legacy = client(p.legacyUrl, p.clientKey);
    });
    afterAll(async () => {
      await p?.stop();
    });

    it('shows the same lobbies as v3, both ways', async () => {
      const created = await legacy.post('/lobbies?name=default', { host: 'lg-alice', name: 'Legacy night', maxPlayers: 4, region: 'eu-west', settings: { map: 'dust' } });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(String), name: 'Legacy night', host: 'lg-alice', maxPlayers: 4, currentPlayers: 1, region: 'eu-west', status: 'waiting',
        isPrivate: false, useInviteCode: true, inviteCode: expect.stringMatching(/^[A-HJ-NP-Z2-9]{6}$/), allowLateJoin: false, settings: { map: 'dust' }, players: ['lg-alice'],
        lobbyStateRealTime: { 'lg-alice': {} }, gameServer: null, timeout: 300, createdAt: expect.any(String), updatedAt: expect.any(String),
        matchmakingMode: null, matchmakingStartedAt: null,
      });
      const mine = await api.get('/v3/lobbies/default/me', as('lg-alice'));
      expect(mine.status).toBe(200);
      // the legacy inviteCode is the lobby's code, whatever its privacy; useInviteCode says there is one
      expect(mine.body).toMatchObject({ id: created.body.id, name: 'Legacy night', host: 'lg-alice', maxPlayers: 4, code: created.body.inviteCode });

      const v3 = await api.post('/v3/lobbies/default', { isPrivate: true, name: 'From v3', state: { ready: true } }, as('lg-v3-host'));
      expect(v3.status).toBe(201);
      const listed = await eventually(() => legacy.get('/lobbies?name=default'), (r) => r.status === 200 && r.body.some((l: { id: string }) => l.id === v3.body.id));
      expect(listed.body.find((l: { id: string }) => l.id === v3.body.id)).toMatchObject({
        name: 'From v3', host: 'lg-v3-host', isPrivate: true, useInviteCode: true, inviteCode: v3.body.code, lobbyStateRealTime: { 'lg-v3-host': { ready: true } },
      });
      expect(listed.body.map((l: { id: string }) => l.id)).toContain(created.body.id);
      for (const flag of ['public=true', 'publicOnly=true']) {
        const publicOnly = await legacy.get(`/lobbies?name=default&${flag}`);
        expect(publicOnly.status).toBe(200);
        expect(publicOnly.body.map((l: { id: string }) => l.id)).toContain(created.body.id);
        expect(publicOnly.body.map((l: { id: string }) => l.id)).not.toContain(v3.body.id);
      }
    });

    it('joins by id and code, merges player state, changes settings, kicks, hands over, leaves and finishes', async () => {
      const created = await legacy.post('/lobbies?name=default', { host: 'lg-host', isPrivate: true, useInviteCode: true, maxPlayers: 3 });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ isPrivate: true, useInviteCode: true, inviteCode: expect.stringMatching(/^[A-HJ-NP-Z2-9]{6}$/) });
      const id: string = created.body.id;

      const bob = await legacy.post(`/lobbies/${id}/players?name=default`, { playerId: 'lg-bob', metadata: { team: 'red' } });
      expect(bob.status).toBe(200);
      expect(bob.body).toMatchObject({ players: ['lg-host', 'lg-bob'], currentPlayers: 2, lobbyStateRealTime: { 'lg-host': {}, 'lg-bob': { team: 'red' } } });
      const carol = await legacy.post(`/lobbies/code/${created.body.inviteCode}/players?name=default`, { playerId: 'lg-carol', metadata: {} });
      expect(carol.status).toBe(200);
      expect(carol.body.players).toEqual(['lg-host', 'lg-bob', 'lg-carol']);
      // statuses as published: full 400, unknown lobby 404, invalid code 400, already in a lobby 400
      expect((await legacy.post(`/lobbies/code/${created.body.inviteCode}/players?name=default`, { playerId: 'lg-dave' })).status).toBe(400);
      expect((await legacy.post(`/lobbies/${UNKNOWN}/players?name=default`, { playerId: 'lg-dave' })).status).toBe(404);
      expect((await legacy.post('/lobbies/code/ZZZZZZ/players?name=default', { playerId: 'lg-dave' })).status).toBe(400);
      const other = await legacy.post('/lobbies?name=default', { host: 'lg-erin' });
      expect((await legacy.post(`/lobbies/${other.body.id}/players?name=default`, { playerId: 'lg-bob' })).status).toBe(400);
      expect((await legacy.post('/lobbies?name=default', { host: 'lg-bob' })).status).toBe(400);

      // player state merges, and v3 sees it
      const state = await legacy.put(`/lobbies/${id}?name=default`, { requesterId: 'lg-bob', playerState: { ready: true } });
      expect(state.status).toBe(200);
      expect(state.body.lobbyStateRealTime['lg-bob']).toEqual({ team: 'red', ready: true });
      const seen = await api.get('/v3/lobbies/default/me', as('lg-bob'));
      expect(seen.body.players.find((pl: { id: string }) => pl.id === 'lg-bob').state).toEqual({ team: 'red', ready: true });
      expect((await api.patch('/v3/lobbies/default/me', { state: { loadout: 'sniper' } }, as('lg-bob'))).status).toBe(200);
      expect((await legacy.put(`/lobbies/${id}?name=default`, { requesterId: 'lg-bob' })).body.lobbyStateRealTime['lg-bob']).toEqual({ team: 'red', ready: true, loadout: 'sniper' });

      // settings: host only
      expect((await legacy.put(`/lobbies/${id}?name=default`, { requesterId: 'lg-bob', settings: { maxPlayers: 5 } })).status).toBe(403);
      const changed = await legacy.put(`/lobbies/${id}?name=default`, { requesterId: 'lg-host', settings: { name: 'Renamed', maxPlayers: 5, settings: { map: 'nuke' } } });
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({ name: 'Renamed', maxPlayers: 5, settings: { map: 'nuke' }, isPrivate: true });
      const pub = await legacy.put(`/lobbies/${id}?name=default`, { requesterId: 'lg-host', settings: { isPrivate: false, useInviteCode: false } });
      expect(pub.body).toMatchObject({ isPrivate: false });
      expect((await api.get('/v3/lobbies/default/me', as('lg-host'))).body).toMatchObject({ name: 'Renamed', maxPlayers: 5, isPrivate: false, code: pub.body.inviteCode });
      expect((await legacy.put(`/lobbies/${id}?name=default`, { requesterId: 'lg-stranger', playerState: {} })).status).toBe(404);

      // kick: host only, with isKick
      expect((await legacy.delete(`/lobbies/${id}/players/lg-carol?name=default&requesterId=lg-bob&isKick=true`)).status).toBe(403);
      expect((await legacy.delete(`/lobbies/${id}/players/lg-carol?name=default&requesterId=lg-host`)).status).toBe(403);
      const kicked = await legacy.delete(`/lobbies/${id}/players/lg-carol?name=default&requesterId=lg-host&isKick=true`);
      expect(kicked.status).toBe(200);
      expect(kicked.body.players).toEqual(['lg-host', 'lg-bob']);
      expect((await api.get('/v3/lobbies/default/me', as('lg-carol'))).status).toBe(404);

      // host transfer, then the old host leaves
      const moved = await legacy.put(`/lobbies/${id}?name=default`, { requesterId: 'lg-host', host: 'lg-bob' });
      expect(moved.status).toBe(200);
      expect(moved.body.host).toBe('lg-bob');
      expect((await api.get('/v3/lobbies/default/me', as('lg-bob'))).body.host).toBe('lg-bob');
      const left = await legacy.delete(`/lobbies/${id}/players/lg-host?name=default&requesterId=lg-host&isKick=false`);
      expect(left.status).toBe(200);
      expect(left.body).toMatchObject({ id, host: 'lg-bob', players: ['lg-bob'], currentPlayers: 1, status: 'waiting' });
      expect((await api.get('/v3/lobbies/default/me', as('lg-host'))).status).toBe(404);

      // the host finishes the lobby: it is deleted
      const finished = await legacy.put(`/lobbies/${id}?name=default`, { requesterId: 'lg-bob', status: 'finished' });
      expect(finished.status).toBe(200);
      expect(finished.body).toMatchObject({ id, status: 'finished', host: 'lg-bob' });
      expect((await server.get(`/v3/lobbies/default/${id}`)).status).toBe(404);
      expect((await api.get('/v3/lobbies/default/me', as('lg-bob'))).status).toBe(404);

      // the last player leaving ends the lobby too
      const solo = await legacy.delete(`/lobbies/${other.body.id}/players/lg-erin?name=default&requesterId=lg-erin`);
      expect(solo.status).toBe(204);
      expect((await server.get(`/v3/lobbies/default/${other.body.id}`)).status).toBe(404);
    });

    it('refuses a missing name (422), a missing api-key (401) and an unknown configuration (404)', async () => {
      const noName = await legacy.get('/lobbies');
      expect(noName.status).toBe(422);
      expect(noName.body).toMatchObject({ status: 422, detail: [{ loc: ['query', 'name'], type: 'missing' }] });
      expect((await legacy.post('/lobbies', { host: 'lg-x' })).status).toBe(422);
      expect((await legacy.delete(`/lobbies/${UNKNOWN}/players/lg-x?name=default`)).body.detail[0].loc).toEqual(['query', 'requesterId']);
      const noKey = await client(p.legacyUrl).get('/lobbies?name=default');
      expect(noKey.status).toBe(401);
      expect(noKey.body).toEqual({ error: 'Invalid or missing API key', status: 401 });
      expect((await legacy.get('/lobbies?name=default', { 'api-key': 'pfclient_nope' })).status).toBe(401);
      expect((await legacy.post('/lobbies?name=no-such-config', { host: 'lg-x' })).status).toBe(404);
    });

    it('starts the game with PUT status in_game (host only) and ends the match with PUT status waiting', async () => {
      await uploadSample(server);
      const created = await legacy.post('/lobbies?name=default', { host: 'lg-game-host', region: 'us-east', settings: { map: 'dust' } });
      expect(created.status).toBe(201);
      const id: string = created.body.id;
      expect((await legacy.post(`/lobbies/${id}/players?name=default`, { playerId: 'lg-game-guest', metadata: { team: 'red' } })).status).toBe(200);
      const find = async () => {
        const r = await legacy.get('/lobbies?name=default');
        return { status: r.status, lobby: (r.body as Listed[]).find((l) => l.id === id) as Record<string, any> | undefined };
      };

      // a non-host may not start the game (v3 start: host only), and nothing starts
      const notHost = await legacy.put(`/lobbies/${id}?name=default`, { requesterId: 'lg-game-guest', status: 'in_game' });
      expect(notHost.status).toBe(403);
      expect(notHost.body).toMatchObject({ status: 403, error: expect.any(String) });
      expect((await api.get('/v3/lobbies/default/me', as('lg-game-host'))).body).toMatchObject({ status: 'waiting', server: null });

      const starting = await legacy.put(`/lobbies/${id}?name=default`, { requesterId: 'lg-game-host', status: 'in_game' });
      expect(starting.status).toBe(200);
      expect(starting.body).toMatchObject({ id, status: 'waiting' }); // v3 starting, shown as waiting
      expect((await api.get('/v3/lobbies/default/me', as('lg-game-host'))).body.status).toMatch(/^(starting|in_game)$/);
      // already starting or in game: nothing to do
      expect((await legacy.put(`/lobbies/${id}?name=default`, { requesterId: 'lg-game-host', status: 'in_game' })).status).toBe(200);

      const inGame = await eventually(find, (r) => r.status === 200 && r.lobby?.status === 'in_game', 30_000, 'legacy in_game');
      expect(inGame.lobby).toMatchObject({
        status: 'in_game', host: 'lg-game-host', players: ['lg-game-host', 'lg-game-guest'],
        gameServer: { instance_id: expect.any(String), status: 'running', region: 'us-east' },
      });
      const serverId: string = inGame.lobby!.gameServer.instance_id;
      expect((await server.get(`/v3/servers/${serverId}`)).body).toMatchObject({ status: 'running', custom_data: { lobby_id: id } });

      // only the host ends the match
      const guestEnds = await legacy.put(`/lobbies/${id}?name=default`, { requesterId: 'lg-game-guest', status: 'waiting' });
      expect(guestEnds.status).toBe(403);
      expect((await api.get('/v3/lobbies/default/me', as('lg-game-guest'))).body.status).toBe('in_game');

      const ended = await legacy.put(`/lobbies/${id}?name=default`, { requesterId: 'lg-game-host', status: 'waiting' });
      expect(ended.status).toBe(200);
      expect(ended.body).toMatchObject({
        id, status: 'waiting', gameServer: null, host: 'lg-game-host', players: ['lg-game-host', 'lg-game-guest'], settings: { map: 'dust' },
        lobbyStateRealTime: { 'lg-game-host': {}, 'lg-game-guest': { team: 'red' } },
      });
      const listed = await eventually(find, (r) => r.status === 200 && r.lobby?.status === 'waiting', 20_000, 'legacy waiting after end-match');
      expect(listed.lobby).toMatchObject({ gameServer: null, players: ['lg-game-host', 'lg-game-guest'], settings: { map: 'dust' } });
      expect((await api.get('/v3/lobbies/default/me', as('lg-game-guest'))).body).toMatchObject({ status: 'waiting', server: null });
      await eventually(() => server.get(`/v3/servers/${serverId}`), (r) => r.body.status === 'stopped', 20_000, 'server stopped after end-match');

      expect((await legacy.put(`/lobbies/${id}?name=default`, { requesterId: 'lg-game-host', status: 'finished' })).status).toBe(200);
    });

    it('refuses oversized playerState and settings with 413 {error, status}, changing nothing', async () => {
      const big = (kib: number) => 'x'.repeat(kib * 1024);
      // create with settings over 64 KiB: no lobby
      const hugeCreate = await legacy.post('/lobbies?name=default', { host: 'lg-big', settings: { blob: big(65) } });
      expect(hugeCreate.status).toBe(413);
      expect(hugeCreate.body).toEqual({ error: expect.any(String), status: 413 });
      expect((await api.get('/v3/lobbies/default/me', as('lg-big'))).status).toBe(404);

      const created = await legacy.post('/lobbies?name=default', { host: 'lg-big', settings: { map: 'dust' } });
      expect(created.status).toBe(201);
      const id: string = created.body.id;
      expect((await legacy.put(`/lobbies/${id}?name=default`, { requesterId: 'lg-big', playerState: { a: big(10) } })).status).toBe(200);

      // playerState over 16 KiB after the merge
      const hugeState = await legacy.put(`/lobbies/${id}?name=default`, { requesterId: 'lg-big', playerState: { b: big(10) } });
      expect(hugeState.status).toBe(413);
      expect(hugeState.body).toEqual({ error: expect.any(String), status: 413 });
      // settings over 64 KiB
      const hugeSettings = await legacy.put(`/lobbies/${id}?name=default`, { requesterId: 'lg-big', settings: { settings: { blob: big(65) } } });
      expect(hugeSettings.status).toBe(413);
      expect(hugeSettings.body).toEqual({ error: expect.any(String), status: 413 });
      // join metadata (the joining player's initial state) over 16 KiB
      expect((await legacy.post(`/lobbies/${id}/players?name=default`, { playerId: 'lg-big-guest', metadata: { c: big(17) } })).status).toBe(413);

      const now = await legacy.put(`/lobbies/${id}?name=default`, { requesterId: 'lg-big' });
      expect(now.status).toBe(200);
      expect(Object.keys(now.body.lobbyStateRealTime['lg-big'])).toEqual(['a']);
      expect(now.body).toMatchObject({ settings: { map: 'dust' }, players: ['lg-big'] });
      const listed = await eventually(() => legacy.get('/lobbies?name=default'), (r) => r.status === 200 && r.body.some((l: Listed) => l.id === id));
      const lobby = listed.body.find((l: Listed) => l.id === id);
      expect(lobby.settings).toEqual({ map: 'dust' });
      expect(Object.keys(lobby.lobbyStateRealTime['lg-big'])).toEqual(['a']);
      expect(lobby.players).toEqual(['lg-big']);
    });

    it('creates {isPrivate: false, useInviteCode: true} as a public lobby, listed; its invite code is the lobby\'s code (every lobby has one)', async () => {
      const created = await legacy.post('/lobbies?name=default', { host: 'lg-code-host', isPrivate: false, useInviteCode: true });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ isPrivate: false, useInviteCode: true, inviteCode: expect.stringMatching(/^[A-HJ-NP-Z2-9]{6}$/) });
      const id: string = created.body.id;
      expect((await api.get('/v3/lobbies/default/me', as('lg-code-host'))).body).toMatchObject({ id, isPrivate: false, code: created.body.inviteCode });
      // listed, with public=true too, and in the v3 public browse
      const publicOnly = await eventually(() => legacy.get('/lobbies?name=default&public=true'), (r) => r.status === 200 && r.body.some((l: Listed) => l.id === id));
      expect(publicOnly.body.find((l: Listed) => l.id === id)).toMatchObject({ isPrivate: false });
      expect((await api.get('/v3/lobbies/default?limit=100', as('lg-browser'))).body.lobbies.map((l: Listed) => l.id)).toContain(id);
      // private on PUT settings: hidden from the public list, joinable by its code
      const priv = await legacy.put(`/lobbies/${id}?name=default`, { requesterId: 'lg-code-host', settings: { isPrivate: true } });
      expect(priv.body).toMatchObject({ isPrivate: true, useInviteCode: true, inviteCode: expect.stringMatching(/^[A-HJ-NP-Z2-9]{6}$/) });
      expect((await legacy.get('/lobbies?name=default&public=true')).body.map((l: Listed) => l.id)).not.toContain(id);
      const joined = await legacy.post(`/lobbies/code/${priv.body.inviteCode}/players?name=default`, { playerId: 'lg-code-guest' });
      expect(joined.status).toBe(200);
      expect(joined.body).toMatchObject({ id, players: ['lg-code-host', 'lg-code-guest'] });
    });

    it('verifies client-auth-token with the project jwt provider', async () => {
      expect((await server.post('/v3/projects/settings', { auth_config: { provider: 'jwt', secret: SECRET } })).status).toBe(200);
      try {
        const missing = await legacy.post('/lobbies?name=default', { host: 'lg-jwt' });
        expect(missing.status).toBe(401);
        expect(missing.body.error).toContain('client-auth-token');
        expect((await legacy.post('/lobbies?name=default', { host: 'lg-jwt' }, { 'client-auth-token': await jwtFor('someone-else') })).status).toBe(401);
        expect((await legacy.post('/lobbies?name=default', { host: 'lg-jwt' }, { 'client-auth-token': 'not-a-jwt' })).status).toBe(401);
        const ok = await legacy.post('/lobbies?name=default', { host: 'lg-jwt' }, { 'client-auth-token': await jwtFor('lg-jwt') });
        expect(ok.status).toBe(201);
        expect((await legacy.put(`/lobbies/${ok.body.id}?name=default`, { requesterId: 'lg-jwt', playerState: { a: 1 } })).status).toBe(401);
      } finally {
        expect((await server.post('/v3/projects/settings', { auth_config: { provider: 'none' } })).status).toBe(200);
      }
    });
  });
}

describeLegacyLobbies('standalone', () => startStandalone({ portRange: '24600-24799' }));
describeLegacyLobbies('distributed', () => startDistributed('24800-24999'));
