// The hosted service's official Unity SDK's lobby flow over the legacy lobby API and its event stream, in
// both modes: every call as the SDK sends it (LobbyAPIImpl, LobbyOperations, LobbySseManager), every
// response checked against the published document by client(), the stream read the way the SDK reads it.
import { client, eventually } from '../support/http';
import { legacyLobbyEvents, LegacyEventStream } from '../support/legacy-sse';
import { Platform, startDistributed, startStandalone } from '../support/processes';

type Api = ReturnType<typeof client>;
const as = (playerId: string) => ({ 'x-player-id': playerId });
type Listed = { id: string };

function describeUnitySdk(mode: string, start: () => Promise<Platform>): void {
  describe(`legacy lobby API as the Unity SDK calls it (${mode})`, () => {
    jest.setTimeout(180_000);
    let p: Platform;
    let server: Api;
    let api: Api;
    let legacy: Api;
    const streams: LegacyEventStream[] = [];
    const stream = async (lobbyId: string, playerId: string) => {
      const s = await legacyLobbyEvents(p.legacyUrl, p.clientKey, lobbyId, playerId, 'default');
      streams.push(s);
      return s;
    };

    beforeAll(async () => {
      p = await start();
      server = client(p.baseUrl, p.serverKey);
      api = client(p.baseUrl, p.clientKey);
      legacy = client(p.legacyUrl, p.clientKey);
      // The SDK's configuration, with a matchmaking mode for its FindMatch.
      const settings = await server.post('/v3/projects/settings', {
        lobby_configs: [{ name: 'default', timeout: 600, matchmaking: { modes: { squads: { teams: 2, playersPerTeam: 2 } } } }],
      });
      expect(settings.status).toBe(200);
    });
    afterAll(async () => {
      for (const s of streams) s.close();
      await p?.stop();
    });

    it('create, stream, join by code, find by player, state, settings, heartbeat, matchmaking, host transfer, kick, browse and delete', async () => {
      // CreateLobby: every field, useInviteCode = isPrivate.
      const created = await legacy.post('/lobbies?name=default', {
        name: 'Unity night', maxPlayers: 4, isPrivate: true, useInviteCode: true, allowLateJoin: true, region: 'us-west', settings: { map: 'castle' }, host: 'u-host',
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        name: 'Unity night', host: 'u-host', maxPlayers: 4, currentPlayers: 1, region: 'us-west', status: 'waiting', isPrivate: true, useInviteCode: true,
        inviteCode: expect.stringMatching(/^[A-HJ-NP-Z2-9]{6}$/), allowLateJoin: true, settings: { map: 'castle' }, players: ['u-host'],
        lobbyStateRealTime: { 'u-host': {} }, gameServer: null, timeout: 600, matchmakingMode: null,
      });
      const id: string = created.body.id;

      // The SDK's stream: `connected` with {message, lobby}, lines `event: ` and `data: ` with a space.
      const hostEvents = await stream(id, 'u-host');
      expect(hostEvents.status).toBe(200);
      const connected = await hostEvents.next('connected');
      expect(connected.data).toEqual({ message: expect.any(String), lobby: expect.objectContaining({ id, host: 'u-host', players: ['u-host'], timeout: 600 }) });
      expect(hostEvents.text()).toMatch(/(^|\n)event: connected\ndata: \{/);

      // JoinLobbyByCode (a private lobby's code here; a public lobby's below).
      const joined = await legacy.post(`/lobbies/code/${created.body.inviteCode}/players?name=default`, { playerId: 'u-guest', metadata: { displayName: 'Player' } });
      expect(joined.status).toBe(200);
      expect(joined.body).toMatchObject({ id, players: ['u-host', 'u-guest'], currentPlayers: 2, lobbyStateRealTime: { 'u-guest': { displayName: 'Player' } } });
      await hostEvents.next('lobby:updated', (e) => e.data.players.includes('u-guest'));
      const guestEvents = await stream(id, 'u-guest');
      expect((await guestEvents.next('connected')).data.lobby.players).toEqual(['u-host', 'u-guest']);

      // FindLobbyByPlayerId and GetLobby: GET /lobbies/{id} with a player id or a lobby id; 404 when none.
      expect((await legacy.get('/lobbies/u-guest?name=default')).body).toMatchObject({ id, host: 'u-host' });
      expect((await legacy.get(`/lobbies/${id}?name=default`)).body).toMatchObject({ id, players: ['u-host', 'u-guest'] });
      const nobody = await legacy.get('/lobbies/u-nobody?name=default');
      expect(nobody.status).toBe(404);
      expect(nobody.body).toMatchObject({ status: 404, error: expect.any(String) });
      expect((await legacy.get(`/lobbies/${id}/players?name=default`)).body).toEqual(['u-host', 'u-guest']);

      // UpdatePlayerState: merged into the requester's state, seen on the stream; the host may set another member's (targetPlayerId).
      const ready = await legacy.put(`/lobbies/${id}?name=default`, { requesterId: 'u-guest', playerState: { ready: true } });
      expect(ready.status).toBe(200);
      expect(ready.body.lobbyStateRealTime['u-guest']).toEqual({ displayName: 'Player', ready: true });
      await hostEvents.next('lobby:updated', (e) => e.data.lobbyStateRealTime['u-guest']?.ready === true);
      const team = await legacy.put(`/lobbies/${id}?name=default`, { requesterId: 'u-host', targetPlayerId: 'u-guest', playerState: { team: 'red' } });
      expect(team.status).toBe(200);
      expect(team.body.lobbyStateRealTime).toEqual({ 'u-host': {}, 'u-guest': { displayName: 'Player', ready: true, team: 'red' } });
      expect((await legacy.put(`/lobbies/${id}?name=default`, { requesterId: 'u-guest', targetPlayerId: 'u-host', playerState: { team: 'red' } })).status).toBe(403);

      // UpdateLobby: custom settings nested in settings.settings, the lobby's fields at the top level; unknown fields ignored.
      const custom = await legacy.put(`/lobbies/${id}?name=default`, { requesterId: 'u-host', settings: { settings: { map: 'dust', mode: 'ctf' } }, sdkVersion: '2.0' });
      expect(custom.status).toBe(200);
      expect(custom.body.settings).toEqual({ map: 'dust', mode: 'ctf' });
      const renamed = await legacy.put(`/lobbies/${id}?name=default`, { requesterId: 'u-host', name: 'Renamed', maxPlayers: 6 });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toMatchObject({ name: 'Renamed', maxPlayers: 6, settings: { map: 'dust', mode: 'ctf' } });
      await guestEvents.next('lobby:updated', (e) => e.data.name === 'Renamed' && e.data.maxPlayers === 6);
      expect((await legacy.put(`/lobbies/${id}?name=default`, { requesterId: 'u-guest', name: 'Mine now' })).status).toBe(403);
      expect((await api.get('/v3/lobbies/default/me', as('u-guest'))).body).toMatchObject({ name: 'Renamed', maxPlayers: 6, settings: { map: 'dust', mode: 'ctf' } });

      // SendHeartbeat: the player's v3 heartbeat; a non-member's is 404.
      const beat = await legacy.post(`/lobbies/${id}/heartbeat?name=default`, { playerId: 'u-guest' });
      expect(beat.status).toBe(204);
      expect((await legacy.post(`/lobbies/${id}/heartbeat?name=default`, { playerId: 'u-nobody' })).status).toBe(404);

      // FindMatch / CancelMatchmaking: PUT matchmaking start|cancel (v3 in_queue is shown as waiting, with the mode).
      expect((await legacy.put(`/lobbies/${id}?name=default`, { requesterId: 'u-guest', matchmaking: { action: 'start', mode: 'squads' } })).status).toBe(403);
      const searching = await legacy.put(`/lobbies/${id}?name=default`, { requesterId: 'u-host', matchmaking: { action: 'start', mode: 'squads' } });
      expect(searching.status).toBe(200);
      expect(searching.body).toMatchObject({ status: 'waiting', matchmakingMode: 'squads', matchmakingStartedAt: expect.any(String) });
      expect((await api.get('/v3/lobbies/default/me', as('u-host'))).body).toMatchObject({ status: 'in_queue', matchmaking: { mode: 'squads' } });
      await guestEvents.next('lobby:updated', (e) => e.data.matchmakingMode === 'squads');
      const cancelled = await legacy.put(`/lobbies/${id}?name=default`, { requesterId: 'u-host', matchmaking: { action: 'cancel' } });
      expect(cancelled.status).toBe(200);
      expect(cancelled.body).toMatchObject({ status: 'waiting', matchmakingMode: null });
      expect((await api.get('/v3/lobbies/default/me', as('u-host'))).body).toMatchObject({ status: 'waiting', matchmaking: null });

      // TransferHost: PUT host (host only).
      expect((await legacy.put(`/lobbies/${id}?name=default`, { requesterId: 'u-guest', host: 'u-guest' })).status).toBe(403);
      const moved = await legacy.put(`/lobbies/${id}?name=default`, { requesterId: 'u-host', host: 'u-guest' });
      expect(moved.status).toBe(200);
      expect(moved.body.host).toBe('u-guest');
      await hostEvents.next('lobby:updated', (e) => e.data.host === 'u-guest');

      // JoinLobby by id, then KickPlayer (isKick=true, the new host): the kicked player's stream shows it gone, then ends.
      expect((await legacy.post(`/lobbies/${id}/players?name=default`, { playerId: 'u-third', metadata: { displayName: 'Player' } })).status).toBe(200);
      const thirdEvents = await stream(id, 'u-third');
      await thirdEvents.next('connected');
      expect((await legacy.delete(`/lobbies/${id}/players/u-third?name=default&requesterId=u-host&isKick=true`)).status).toBe(403);
      const kicked = await legacy.delete(`/lobbies/${id}/players/u-third?name=default&requesterId=u-guest&isKick=true`);
      expect(kicked.status).toBe(200);
      expect(kicked.body.players).toEqual(['u-host', 'u-guest']);
      await thirdEvents.next('lobby:updated', (e) => !e.data.players.includes('u-third'));
      await thirdEvents.ended();
      expect((await legacy.get('/lobbies/u-third?name=default')).status).toBe(404);

      // GetAvailableLobbies: ?public=true leaves the private lobby out.
      const pub = await legacy.post('/lobbies?name=default', {
        name: 'Open house', maxPlayers: 8, isPrivate: false, useInviteCode: false, allowLateJoin: true, region: 'us-west', settings: {}, host: 'u-public',
      });
      expect(pub.status).toBe(201);
      // Every lobby has an invite code, a public one too, and it joins that lobby.
      expect(pub.body).toMatchObject({ isPrivate: false, useInviteCode: true, inviteCode: expect.stringMatching(/^[A-HJ-NP-Z2-9]{6}$/) });
      const byPublicCode = await legacy.post(`/lobbies/code/${pub.body.inviteCode}/players?name=default`, { playerId: 'u-public-guest' });
      expect(byPublicCode.status).toBe(200);
      expect(byPublicCode.body).toMatchObject({ id: pub.body.id, players: ['u-public', 'u-public-guest'] });
      const all = await eventually(() => legacy.get('/lobbies?name=default'), (r) => r.status === 200 && r.body.some((l: Listed) => l.id === pub.body.id));
      expect(all.body.map((l: Listed) => l.id)).toContain(id);
      const publicOnly = await legacy.get('/lobbies?name=default&public=true');
      expect(publicOnly.status).toBe(200);
      expect(publicOnly.body.map((l: Listed) => l.id)).toContain(pub.body.id);
      expect(publicOnly.body.map((l: Listed) => l.id)).not.toContain(id);

      // DeleteLobby: DELETE with body {playerId}; only the host (403), then 204 and lobby:deleted {lobbyId} on every stream.
      const notHost = await legacy.send('DELETE', `/lobbies/${id}?name=default`, { playerId: 'u-host' });
      expect(notHost.status).toBe(403);
      expect(notHost.body).toMatchObject({ status: 403, error: expect.any(String) });
      const deleted = await legacy.send('DELETE', `/lobbies/${id}?name=default`, { playerId: 'u-guest' });
      expect(deleted.status).toBe(204);
      for (const s of [hostEvents, guestEvents]) {
        expect((await s.next('lobby:deleted')).data).toEqual({ lobbyId: id });
        await s.ended();
      }
      expect((await legacy.get(`/lobbies/${id}?name=default`)).status).toBe(404);
      expect((await legacy.get('/lobbies/u-guest?name=default')).status).toBe(404);
      expect((await server.get(`/v3/lobbies/default/${id}`)).status).toBe(404);
      // no event names beyond the three the SDK knows
      expect(new Set(hostEvents.events.map((e) => e.event))).toEqual(new Set(['connected', 'lobby:updated', 'lobby:deleted']));
    });

    it('the event stream: 404 for a player not in that lobby, 422 without player-id, 401 without a key, api_key in the query for an EventSource', async () => {
      const created = await legacy.post('/lobbies?name=default', { name: 'Stream', host: 'u-s-host' });
      expect(created.status).toBe(201);
      const id: string = created.body.id;
      const base = `${p.legacyUrl}/lobbies-sse/${id}/events`;
      const stranger = await fetch(`${base}?player-id=u-s-nobody&lobby-config=default`, { headers: { 'api-key': p.clientKey } });
      expect(stranger.status).toBe(404);
      expect(await stranger.json()).toMatchObject({ status: 404, error: expect.any(String) });
      const noPlayer = await fetch(`${base}?lobby-config=default`, { headers: { 'api-key': p.clientKey } });
      expect(noPlayer.status).toBe(422);
      expect((await noPlayer.json()).detail[0].loc).toEqual(['query', 'player-id']);
      expect((await fetch(`${base}?player-id=u-s-host&lobby-config=default`)).status).toBe(401);
      const abort = new AbortController();
      const byQuery = await fetch(`${base}?player-id=u-s-host&lobby-config=default&api_key=${p.clientKey}`, { signal: abort.signal });
      expect(byQuery.status).toBe(200);
      expect(byQuery.headers.get('content-type')).toContain('text/event-stream');
      abort.abort();
      // LeaveLobby of the last player: the lobby goes with it, 204.
      expect((await legacy.delete(`/lobbies/${id}/players/u-s-host?name=default&requesterId=u-s-host&isKick=false`)).status).toBe(204);
      expect((await legacy.get(`/lobbies/${id}?name=default`)).status).toBe(404);
    });
  });
}

describeUnitySdk('standalone', () => startStandalone({ portRange: '31400-31599' }));
describeUnitySdk('distributed', () => startDistributed('31600-31799'));
