// Lobbies (v3), first cut: player routes and the server-key admin routes against `npm start`'s process.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { client } from '../support/http';
import { Platform, startStandalone } from '../support/processes';

describe('lobbies v3 (standalone)', () => {
  jest.setTimeout(120_000);
  let p: Platform;
  let server: ReturnType<typeof client>;
  let clientApi: ReturnType<typeof client>;
  const as = (playerId: string) => ({ 'x-player-id': playerId });

  beforeAll(async () => {
    p = await startStandalone();
    server = client(p.baseUrl, p.serverKey);
    clientApi = client(p.baseUrl, p.clientKey);
  });
  afterAll(async () => {
    await p?.stop();
  });

  it('creates, joins by id and code, merges state, promotes on host leave, and is administered with the server key', async () => {
    // create → get me
    const created = await clientApi.post('/v3/lobbies/default', { name: 'Friday', settings: { map: 'dust' }, state: { ready: false } }, as('alice'));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ config: 'default', status: 'waiting', host: 'alice', code: null, isPrivate: false, maxPlayers: 8, currentPlayers: 1, matchmaking: null, server: null });
    expect(created.body.players).toEqual([{ id: 'alice', state: { ready: false }, isHost: true }]);
    const lobbyId: string = created.body.id;
    const mine = await clientApi.get('/v3/lobbies/default/me', as('alice'));
    expect(mine.status).toBe(200);
    expect(mine.body.id).toBe(lobbyId);
    expect((await clientApi.get('/v3/lobbies/default/me', as('nobody'))).status).toBe(404);

    // validation and unknown things
    const noHeader = await clientApi.get('/v3/lobbies/default/me');
    expect(noHeader.status).toBe(422);
    expect(noHeader.body.detail[0].loc).toEqual(['header', 'x-player-id']);
    expect((await clientApi.get('/v3/lobbies/default/me', as('bad id!'))).status).toBe(422);
    expect((await clientApi.post('/v3/lobbies/no-such-config', {}, as('zed'))).status).toBe(404);
    expect((await clientApi.post('/v3/lobbies/default', {}, as('alice'))).status).toBe(409);
    expect((await clientApi.post('/v3/lobbies/default/join', { lobbyId, code: 'ABCDEF' }, as('bob'))).status).toBe(422);
    expect((await clientApi.post('/v3/lobbies/default/join', {}, as('bob'))).status).toBe(422);
    expect((await clientApi.post('/v3/lobbies/default/join', { lobbyId: '00000000-0000-4000-8000-000000000000' }, as('bob'))).status).toBe(404);
    expect((await clientApi.post('/v3/lobbies/default/join', { code: 'ZZZZZZ' }, as('bob'))).status).toBe(404);

    // second player joins by id
    const bobJoined = await clientApi.post('/v3/lobbies/default/join', { lobbyId, state: { team: 'blue' } }, as('bob'));
    expect(bobJoined.status).toBe(200);
    expect(bobJoined.body.currentPlayers).toBe(2);
    expect(bobJoined.body.players.map((pl: { id: string }) => pl.id)).toEqual(['alice', 'bob']);

    // a private lobby of two, joined by code
    const priv = await clientApi.post('/v3/lobbies/default', { isPrivate: true, maxPlayers: 2 }, as('carol'));
    expect(priv.status).toBe(201);
    expect(priv.body.code).toMatch(/^[A-HJ-NP-Z2-9]{6}$/);
    const daveJoined = await clientApi.post('/v3/lobbies/default/join', { code: priv.body.code }, as('dave'));
    expect(daveJoined.status).toBe(200);
    expect(daveJoined.body).toMatchObject({ id: priv.body.id, currentPlayers: 2 });

    // double join: 409; full: 400
    expect((await clientApi.post('/v3/lobbies/default/join', { code: priv.body.code }, as('bob'))).status).toBe(409);
    const full = await clientApi.post('/v3/lobbies/default/join', { code: priv.body.code }, as('erin'));
    expect(full.status).toBe(400);

    // PATCH me merges
    expect((await clientApi.patch('/v3/lobbies/default/me', { state: { ready: true } }, as('bob'))).status).toBe(200);
    const merged = await clientApi.patch('/v3/lobbies/default/me', { state: { loadout: 'sniper' } }, as('bob'));
    expect(merged.status).toBe(200);
    expect(merged.body.players.find((pl: { id: string }) => pl.id === 'bob').state).toEqual({ team: 'blue', ready: true, loadout: 'sniper' });
    expect((await clientApi.patch('/v3/lobbies/default/me', { state: 'ready' }, as('bob'))).status).toBe(422);
    expect((await clientApi.patch('/v3/lobbies/default/me', { state: {} }, as('nobody'))).status).toBe(404);

    // host leaves: bob is promoted
    const left = await clientApi.delete('/v3/lobbies/default/me', as('alice'));
    expect(left.status).toBe(200);
    expect(left.body).toEqual({ status: 'left', lobbyId });
    expect((await clientApi.get('/v3/lobbies/default/me', as('alice'))).status).toBe(404);
    const afterLeave = await clientApi.get('/v3/lobbies/default/me', as('bob'));
    expect(afterLeave.body).toMatchObject({ host: 'bob', currentPlayers: 1 });
    expect(afterLeave.body.players).toEqual([{ id: 'bob', state: { team: 'blue', ready: true, loadout: 'sniper' }, isHost: true }]);

    // admin: server key only
    const adminGet = await server.get(`/v3/lobbies/default/${lobbyId}`);
    expect(adminGet.status).toBe(200);
    expect(adminGet.body).toMatchObject({ id: lobbyId, host: 'bob' });
    expect((await clientApi.get(`/v3/lobbies/default/${lobbyId}`)).status).toBe(403);
    expect((await clientApi.delete(`/v3/lobbies/default/${lobbyId}`)).status).toBe(403);
    expect((await server.get('/v3/lobbies/default/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const deleted = await server.delete(`/v3/lobbies/default/${lobbyId}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ status: 'lobby_deleted', id: lobbyId });
    expect((await server.get(`/v3/lobbies/default/${lobbyId}`)).status).toBe(404);
    expect((await server.delete(`/v3/lobbies/default/${lobbyId}`)).status).toBe(404);
    expect((await clientApi.get('/v3/lobbies/default/me', as('bob'))).status).toBe(404);

    // bob is free to create again after his lobby was deleted
    expect((await clientApi.post('/v3/lobbies/default', {}, as('bob'))).status).toBe(201);
  });

  it("uses a project's lobby_configs: its maxPlayers, hostLeaveBehavior and invite codes", async () => {
    const settings = await server.post('/v3/projects/settings', { lobby_configs: [
      { name: 'duo', maxPlayers: 2, hostLeaveBehavior: 'close', inviteCodeConfig: { type: 'numeric', length: 4, prefix: 'D-' } },
    ] });
    expect(settings.status).toBe(200);
    const duo = await clientApi.post('/v3/lobbies/duo', { isPrivate: true }, as('frank'));
    expect(duo.status).toBe(201);
    expect(duo.body).toMatchObject({ config: 'duo', maxPlayers: 2 });
    expect(duo.body.code).toMatch(/^D-[0-9]{4}$/);
    // one lobby per player per config: frank may still be in a default lobby
    expect((await clientApi.post('/v3/lobbies/default', {}, as('frank'))).status).toBe(201);
    // a lobby of another config is not found under this one
    expect((await server.get(`/v3/lobbies/default/${duo.body.id}`)).status).toBe(404);
    expect((await clientApi.post('/v3/lobbies/duo/join', { code: duo.body.code }, as('gina'))).status).toBe(200);
    // host leaves a `close` lobby: it is deleted
    expect((await clientApi.delete('/v3/lobbies/duo/me', as('frank'))).status).toBe(200);
    expect((await clientApi.get('/v3/lobbies/duo/me', as('gina'))).status).toBe(404);
    expect((await server.get(`/v3/lobbies/duo/${duo.body.id}`)).status).toBe(404);
  });
});

describe('lobbies v3 after a standalone restart', () => {
  jest.setTimeout(180_000);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sp-e2e-lobbies-restart-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('rebuilds who is in which lobby, and invite codes, from the lobby events', async () => {
    const first = await startStandalone({ dataDir });
    const api = client(first.baseUrl, first.clientKey);
    const priv = await api.post('/v3/lobbies/default', { isPrivate: true }, { 'x-player-id': 'hana' });
    expect(priv.status).toBe(201);
    expect((await api.post('/v3/lobbies/default/join', { code: priv.body.code }, { 'x-player-id': 'ivan' })).status).toBe(200);
    expect((await api.delete('/v3/lobbies/default/me', { 'x-player-id': 'ivan' })).status).toBe(200);
    await first.stop();

    const second = await startStandalone({ dataDir });
    try {
      const again = client(second.baseUrl, second.clientKey);
      const mine = await again.get('/v3/lobbies/default/me', { 'x-player-id': 'hana' });
      expect(mine.status).toBe(200);
      expect(mine.body).toMatchObject({ id: priv.body.id, host: 'hana', currentPlayers: 1 });
      expect((await again.get('/v3/lobbies/default/me', { 'x-player-id': 'ivan' })).status).toBe(404);
      expect((await again.post('/v3/lobbies/default', {}, { 'x-player-id': 'hana' })).status).toBe(409);
      expect((await again.post('/v3/lobbies/default/join', { code: priv.body.code }, { 'x-player-id': 'ivan' })).status).toBe(200);
    } finally {
      await second.stop();
    }
  });
});
