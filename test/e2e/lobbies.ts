// Lobbies (v3) end to end, run in both modes: player routes, admin routes, direct start with a real
// game server, timers, concurrency, and the event stream read by a real SSE client.
import { client, eventually } from '../support/http';
import { Platform } from '../support/processes';
import { lobbyEvents } from '../support/sse';
import { uploadSample } from './server-lifecycle';

type Api = ReturnType<typeof client>;
const as = (playerId: string) => ({ 'x-player-id': playerId });
const ids = (lobby: { players: { id: string }[] }) => lobby.players.map((p) => p.id);
/** The revision of an event id `<lobbyId>:<revision>` of this lobby (fails on any other shape). */
const revisionOf = (lobbyId: string, id: string) => {
  expect(id).toMatch(new RegExp(`^${lobbyId}:\\d+$`));
  return Number(id.slice(lobbyId.length + 1));
};
/** Wait this long (for timers that must not have fired yet). */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function describeLobbies(mode: string, start: () => Promise<Platform>): void {
  describe(`lobbies v3 (${mode})`, () => {
    jest.setTimeout(180_000);
    let p: Platform;
    let server: Api;
    let api: Api;

    beforeAll(async () => {
      p = await start();
      server = client(p.baseUrl, p.serverKey);
      api = client(p.baseUrl, p.clientKey);
      const settings = await server.post('/v3/projects/settings', { lobby_configs: [
        { name: 'duo', maxPlayers: 2, hostLeaveBehavior: 'close', inviteCodeConfig: { type: 'numeric', length: 4, prefix: 'D-' } },
        { name: 'quick', timeout: 3 },
        { name: 'pulse', heartbeat: true, heartbeatTimeout: 5 },
        { name: 'linger', timeout: 5 },
      ] });
      expect(settings.status).toBe(200);
    });
    afterAll(async () => {
      await p?.stop();
    });
    // streams a test could leave open when it fails midway
    const closeAfter: (() => void)[] = [];
    afterEach(() => closeAfter.splice(0).forEach((close) => close()));

    it('creates, joins by id and code, merges state, promotes on host leave, and is administered with the server key', async () => {
      const created = await api.post('/v3/lobbies/default', { name: 'Friday', settings: { map: 'dust' }, state: { ready: false } }, as('alice'));
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ config: 'default', status: 'waiting', host: 'alice', code: expect.stringMatching(/^[A-HJ-NP-Z2-9]{6}$/), isPrivate: false, maxPlayers: 8, currentPlayers: 1, matchmaking: null, server: null });
      expect(created.body.players).toEqual([{ id: 'alice', state: { ready: false }, isHost: true }]);
      const lobbyId: string = created.body.id;
      expect((await api.get('/v3/lobbies/default/me', as('alice'))).body.id).toBe(lobbyId);
      expect((await api.get('/v3/lobbies/default/me', as('nobody'))).status).toBe(404);

      const noHeader = await api.get('/v3/lobbies/default/me');
      expect(noHeader.status).toBe(422);
      expect(noHeader.body.detail[0].loc).toEqual(['header', 'x-player-id']);
      expect((await api.get('/v3/lobbies/default/me', as('bad id!'))).status).toBe(422);
      expect((await api.post('/v3/lobbies/no-such-config', {}, as('zed'))).status).toBe(404);
      expect((await api.post('/v3/lobbies/default', {}, as('alice'))).status).toBe(409);
      const both = await api.post('/v3/lobbies/default/join', { lobbyId, code: 'ABCDEF' }, as('bob'));
      expect(both.status).toBe(422);
      expect(both.body.detail).toEqual([{ loc: ['body'], msg: 'Give exactly one of lobbyId and code', type: 'value_error' }]);
      expect((await api.post('/v3/lobbies/default/join', {}, as('bob'))).status).toBe(422);
      expect((await api.post('/v3/lobbies/default/join', { lobbyId: '00000000-0000-4000-8000-000000000000' }, as('bob'))).status).toBe(404);
      expect((await api.post('/v3/lobbies/default/join', { code: 'ZZZZZZ' }, as('bob'))).status).toBe(404);

      const bobJoined = await api.post('/v3/lobbies/default/join', { lobbyId, state: { team: 'blue' } }, as('bob'));
      expect(bobJoined.status).toBe(200);
      expect(ids(bobJoined.body)).toEqual(['alice', 'bob']);

      const priv = await api.post('/v3/lobbies/default', { isPrivate: true, maxPlayers: 2 }, as('carol'));
      expect(priv.status).toBe(201);
      expect(priv.body.code).toMatch(/^[A-HJ-NP-Z2-9]{6}$/);
      expect((await api.post('/v3/lobbies/default/join', { code: priv.body.code }, as('dave'))).body).toMatchObject({ id: priv.body.id, currentPlayers: 2 });
      expect((await api.post('/v3/lobbies/default/join', { code: priv.body.code }, as('bob'))).status).toBe(409);
      expect((await api.post('/v3/lobbies/default/join', { code: priv.body.code }, as('erin'))).status).toBe(400);

      expect((await api.patch('/v3/lobbies/default/me', { state: { ready: true } }, as('bob'))).status).toBe(200);
      const merged = await api.patch('/v3/lobbies/default/me', { state: { loadout: 'sniper' } }, as('bob'));
      expect(merged.body.players.find((pl: { id: string }) => pl.id === 'bob').state).toEqual({ team: 'blue', ready: true, loadout: 'sniper' });
      expect((await api.patch('/v3/lobbies/default/me', { state: 'ready' }, as('bob'))).status).toBe(422);
      expect((await api.patch('/v3/lobbies/default/me', { state: {} }, as('nobody'))).status).toBe(404);

      const left = await api.delete('/v3/lobbies/default/me', as('alice'));
      expect(left.body).toEqual({ status: 'left', lobbyId });
      expect((await api.get('/v3/lobbies/default/me', as('alice'))).status).toBe(404);
      expect((await api.get('/v3/lobbies/default/me', as('bob'))).body).toMatchObject({ host: 'bob', currentPlayers: 1 });

      expect((await server.get(`/v3/lobbies/default/${lobbyId}`)).body).toMatchObject({ id: lobbyId, host: 'bob' });
      expect((await api.get(`/v3/lobbies/default/${lobbyId}`)).status).toBe(403);
      expect((await api.delete(`/v3/lobbies/default/${lobbyId}`)).status).toBe(403);
      expect((await server.get('/v3/lobbies/default/00000000-0000-4000-8000-000000000000')).status).toBe(404);
      expect((await server.get(`/v3/lobbies/duo/${lobbyId}`)).status).toBe(404);
      expect((await server.delete(`/v3/lobbies/default/${lobbyId}`)).body).toEqual({ status: 'lobby_deleted', id: lobbyId });
      expect((await server.get(`/v3/lobbies/default/${lobbyId}`)).status).toBe(404);
      expect((await server.delete(`/v3/lobbies/default/${lobbyId}`)).status).toBe(404);
      expect((await api.get('/v3/lobbies/default/me', as('bob'))).status).toBe(404);
      expect((await api.post('/v3/lobbies/default', {}, as('bob'))).status).toBe(201);
    });

    it('validates lobby_configs on POST /v3/projects/settings: 422 with the field, nothing changes', async () => {
      const bad = await server.post('/v3/projects/settings', { lobby_configs: [{ name: 'big', maxPlayers: 500 }] });
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0].loc).toEqual(['body', 'lobby_configs', 0, 'maxPlayers']);
      expect((await server.post('/v3/projects/settings', { lobby_configs: [{ name: 'a' }, { name: 'a' }] })).status).toBe(422);
      expect((await server.post('/v3/projects/settings', { lobby_configs: [{ name: 'bad name!' }] })).status).toBe(422);
      expect((await server.post('/v3/projects/settings', { lobby_configs: [{ name: 'x', hostLeaveBehavior: 'explode' }] })).status).toBe(422);
      expect((await server.post('/v3/projects/settings', { lobby_configs: [{ name: 'x', inviteCodeConfig: { type: 'emoji' } }] })).status).toBe(422);
      expect((await api.post('/v3/projects/settings', { lobby_configs: [] })).status).toBe(403);
      const now = await api.get('/v3/projects/settings');
      expect(now.body.lobby_configs.map((c: { name: string }) => c.name)).toEqual(['duo', 'quick', 'pulse', 'linger']);
    });

    it("uses a project's lobby_configs: maxPlayers, hostLeaveBehavior close, invite codes", async () => {
      const duo = await api.post('/v3/lobbies/duo', { isPrivate: true }, as('frank'));
      expect(duo.status).toBe(201);
      expect(duo.body).toMatchObject({ config: 'duo', maxPlayers: 2 });
      expect(duo.body.code).toMatch(/^D-[0-9]{4}$/);
      expect((await api.post('/v3/lobbies/default', {}, as('frank'))).status).toBe(201);
      expect((await api.post('/v3/lobbies/duo/join', { code: duo.body.code }, as('gina'))).status).toBe(200);
      expect((await api.delete('/v3/lobbies/duo/me', as('frank'))).status).toBe(200);
      expect((await api.get('/v3/lobbies/duo/me', as('gina'))).status).toBe(404);
      expect((await server.get(`/v3/lobbies/duo/${duo.body.id}`)).status).toBe(404);
      // the code is free again once its lobby is gone
      expect((await api.post('/v3/lobbies/duo/join', { code: duo.body.code }, as('hugo'))).status).toBe(404);
    });

    it('browses public lobbies (region, status, pages), and lets the host change settings, kick and hand over', async () => {
      const a = await api.post('/v3/lobbies/default', { region: 'eu-west', name: 'A' }, as('b-host-1'));
      const b = await api.post('/v3/lobbies/default', { region: 'eu-west', name: 'B' }, as('b-host-2'));
      const hidden = await api.post('/v3/lobbies/default', { region: 'eu-west', isPrivate: true }, as('b-host-3'));
      expect([a.status, b.status, hidden.status]).toEqual([201, 201, 201]);
      const page1 = await eventually(() => api.get('/v3/lobbies/default?region=eu-west&limit=1', as('browser')), (r) => r.body.lobbies?.length === 1);
      expect(page1.body).toMatchObject({ total: 2, limit: 1, offset: 0, hasMore: true });
      expect(page1.body.lobbies[0].id).toBe(b.body.id);
      const page2 = await api.get('/v3/lobbies/default?region=eu-west&limit=1&offset=1', as('browser'));
      expect(page2.body.lobbies.map((l: { id: string }) => l.id)).toEqual([a.body.id]);
      expect(page2.body).toMatchObject({ total: 2, limit: 1, offset: 1, hasMore: false });
      expect((await api.get('/v3/lobbies/default?region=eu-west&status=in_game', as('browser'))).body).toMatchObject({ lobbies: [], total: 0, hasMore: false });
      expect((await api.get('/v3/lobbies/default?region=mars', as('browser'))).status).toBe(422);
      expect((await api.get('/v3/lobbies/default?offset=-1', as('browser'))).status).toBe(422);

      // settings: host only; privacy only hides the lobby from browse, its invite code stays
      expect((await api.post('/v3/lobbies/default/join', { lobbyId: a.body.id }, as('b-guest'))).status).toBe(200);
      expect((await api.patch('/v3/lobbies/default/me/settings', { name: 'nope' }, as('b-guest'))).status).toBe(403);
      const priv = await api.patch('/v3/lobbies/default/me/settings', { isPrivate: true, maxPlayers: 4, settings: { map: 'nuke' } }, as('b-host-1'));
      expect(priv.status).toBe(200);
      expect(priv.body).toMatchObject({ isPrivate: true, maxPlayers: 4, settings: { map: 'nuke' } });
      expect(priv.body.code).toBe(a.body.code);
      const tooFew = await api.patch('/v3/lobbies/default/me/settings', { maxPlayers: 1 }, as('b-host-1'));
      expect(tooFew.status).toBe(422);
      expect(tooFew.body.detail[0].loc).toEqual(['body', 'maxPlayers']);
      const pub = await api.patch('/v3/lobbies/default/me/settings', { isPrivate: false }, as('b-host-1'));
      expect(pub.body).toMatchObject({ isPrivate: false, code: a.body.code });

      // transfer host, then the new host kicks the old one
      expect((await api.post('/v3/lobbies/default/me/transfer-host', { playerId: 'stranger' }, as('b-host-1'))).status).toBe(404);
      const moved = await api.post('/v3/lobbies/default/me/transfer-host', { playerId: 'b-guest' }, as('b-host-1'));
      expect(moved.body.host).toBe('b-guest');
      expect((await api.post('/v3/lobbies/default/me/kick', { playerId: 'b-guest' }, as('b-host-1'))).status).toBe(403);
      const kicked = await api.post('/v3/lobbies/default/me/kick', { playerId: 'b-host-1' }, as('b-guest'));
      expect(ids(kicked.body)).toEqual(['b-guest']);
      expect((await api.get('/v3/lobbies/default/me', as('b-host-1'))).status).toBe(404);
      expect((await api.post('/v3/lobbies/default/me/heartbeat', undefined, as('b-guest'))).status).toBe(204);
      expect((await api.post('/v3/lobbies/default/me/heartbeat', undefined, as('b-host-1'))).status).toBe(404);
    });

    it('refuses player state over 16 KiB and settings over 64 KiB with 413, changing nothing', async () => {
      expect((await api.post('/v3/lobbies/default', { state: { blob: 'x'.repeat(17 * 1024) } }, as('big-1'))).status).toBe(413);
      expect((await api.get('/v3/lobbies/default/me', as('big-1'))).status).toBe(404);
      expect((await api.post('/v3/lobbies/default', { settings: { blob: 'x'.repeat(65 * 1024) } }, as('big-1'))).status).toBe(413);
      expect((await api.post('/v3/lobbies/default', { state: { a: 'x'.repeat(10 * 1024) } }, as('big-1'))).status).toBe(201);
      const over = await api.patch('/v3/lobbies/default/me', { state: { b: 'x'.repeat(10 * 1024) } }, as('big-1'));
      expect(over.status).toBe(413);
      expect(over.body).toMatchObject({ status: 413, error: expect.any(String) });
      expect(Object.keys((await api.get('/v3/lobbies/default/me', as('big-1'))).body.players[0].state)).toEqual(['a']);
    });

    it('refuses settings over 64 KiB on PATCH me/settings and a join with state over 16 KiB (413), changing nothing', async () => {
      const lobby = await api.post('/v3/lobbies/default', { name: 'Small', settings: { map: 'dust' } }, as('big-host'));
      expect(lobby.status).toBe(201);
      const tooBig = await api.patch('/v3/lobbies/default/me/settings', { name: 'Huge', settings: { blob: 'x'.repeat(65 * 1024) } }, as('big-host'));
      expect(tooBig.status).toBe(413);
      expect(tooBig.body).toEqual({ error: expect.any(String), status: 413 });
      const still = await api.get('/v3/lobbies/default/me', as('big-host'));
      expect(still.body).toMatchObject({ name: 'Small', settings: { map: 'dust' } });

      const join = await api.post('/v3/lobbies/default/join', { lobbyId: lobby.body.id, state: { blob: 'x'.repeat(17 * 1024) } }, as('big-joiner'));
      expect(join.status).toBe(413);
      expect(join.body).toEqual({ error: expect.any(String), status: 413 });
      expect((await api.get('/v3/lobbies/default/me', as('big-joiner'))).status).toBe(404);
      const after = await api.get('/v3/lobbies/default/me', as('big-host'));
      expect(ids(after.body)).toEqual(['big-host']);
      // under the limits both go through
      expect((await api.post('/v3/lobbies/default/join', { lobbyId: lobby.body.id, state: { blob: 'x'.repeat(10 * 1024) } }, as('big-joiner'))).status).toBe(200);
      expect((await api.patch('/v3/lobbies/default/me/settings', { settings: { blob: 'x'.repeat(40 * 1024) } }, as('big-host'))).status).toBe(200);
    });

    it('refuses transfer-host and kick by a non-host (403), leaving host and members as they were', async () => {
      const lobby = await api.post('/v3/lobbies/default', {}, as('nh-host'));
      await api.post('/v3/lobbies/default/join', { lobbyId: lobby.body.id }, as('nh-guest'));
      await api.post('/v3/lobbies/default/join', { lobbyId: lobby.body.id }, as('nh-other'));
      const before = await api.get('/v3/lobbies/default/me', as('nh-host'));
      expect(before.body).toMatchObject({ host: 'nh-host', currentPlayers: 3 });

      for (const playerId of ['nh-guest', 'nh-other']) {
        const transfer = await api.post('/v3/lobbies/default/me/transfer-host', { playerId }, as('nh-guest'));
        expect(transfer.status).toBe(403);
        expect(transfer.body).toEqual({ error: expect.any(String), status: 403 });
      }
      for (const playerId of ['nh-host', 'nh-other']) {
        const kick = await api.post('/v3/lobbies/default/me/kick', { playerId }, as('nh-guest'));
        expect(kick.status).toBe(403);
        expect(kick.body).toEqual({ error: expect.any(String), status: 403 });
      }
      const after = await api.get('/v3/lobbies/default/me', as('nh-other'));
      expect(after.body).toMatchObject({ host: 'nh-host', currentPlayers: 3 });
      expect(after.body.players).toEqual(before.body.players);
      expect(after.body.updatedAt).toBe(before.body.updatedAt);
    });

    it('decides concurrency on the lobby stream: 100 joins into 8 slots, one player into two lobbies, parallel state patches', async () => {
      const lobby = await api.post('/v3/lobbies/default', {}, as('race-host'));
      const joins = await Promise.all(Array.from({ length: 100 }, (_, i) => api.post('/v3/lobbies/default/join', { lobbyId: lobby.body.id }, as(`racer-${i}`))));
      const statuses = joins.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(7);
      expect(statuses.filter((s) => s === 400)).toHaveLength(93);
      const after = await server.get(`/v3/lobbies/default/${lobby.body.id}`);
      expect(after.body.currentPlayers).toBe(8);

      const l1 = await api.post('/v3/lobbies/default', {}, as('twin-host-1'));
      const l2 = await api.post('/v3/lobbies/default', {}, as('twin-host-2'));
      const both = await Promise.all([l1, l2].map((l) => api.post('/v3/lobbies/default/join', { lobbyId: l.body.id }, as('twin'))));
      expect(both.map((r) => r.status).sort()).toEqual([200, 409]);

      const members = joins.filter((r) => r.status === 200).map((_, i) => i);
      void members;
      const winners = after.body.players.map((pl: { id: string }) => pl.id);
      await Promise.all(winners.map((id: string) => api.patch('/v3/lobbies/default/me', { state: { [`k-${id}`]: id } }, as(id))));
      const final = await server.get(`/v3/lobbies/default/${lobby.body.id}`);
      for (const pl of final.body.players) expect(pl.state).toEqual({ [`k-${pl.id}`]: pl.id });
    });

    it('streams connected, lobby_updated on every change, the kick that ends a stream, lobby_deleted, and replays after Last-Event-ID', async () => {
      const created = await api.post('/v3/lobbies/default', {}, as('sse-host'));
      const lobbyId = created.body.id;
      const host = lobbyEvents(p.baseUrl, p.clientKey, 'default', 'sse-host');
      try {
        const connected = await host.next('connected');
        expect(connected.data).toMatchObject({ id: lobbyId, host: 'sse-host' });
        expect(connected.id).toMatch(new RegExp(`^${lobbyId}:\\d+$`));

        await api.post('/v3/lobbies/default/join', { lobbyId }, as('sse-guest'));
        expect(ids((await host.next('lobby_updated')).data)).toEqual(['sse-host', 'sse-guest']);
        await api.patch('/v3/lobbies/default/me', { state: { ready: true } }, as('sse-guest'));
        const patched = await host.next('lobby_updated');
        expect(patched.data.players[1].state).toEqual({ ready: true });

        // a kicked player's stream gets the update and ends
        const guest = lobbyEvents(p.baseUrl, p.clientKey, 'default', 'sse-guest');
        await guest.next('connected');
        await api.post('/v3/lobbies/default/me/kick', { playerId: 'sse-guest' }, as('sse-host'));
        expect(ids((await guest.next('lobby_updated')).data)).toEqual(['sse-host']);
        await guest.ended();
        guest.close();
        const afterKick = await host.next('lobby_updated');

        // the host disconnects; two changes happen; reconnecting with Last-Event-ID replays them first
        host.close();
        await api.post('/v3/lobbies/default/join', { lobbyId }, as('sse-late'));
        await api.patch('/v3/lobbies/default/me', { state: { team: 'red' } }, as('sse-late'));
        const again = lobbyEvents(p.baseUrl, p.clientKey, 'default', 'sse-host', { lastEventId: afterKick.id });
        try {
          const missed1 = await again.next('lobby_updated');
          expect(ids(missed1.data)).toEqual(['sse-host', 'sse-late']);
          const missed2 = await again.next('lobby_updated');
          expect(missed2.data.players[1].state).toEqual({ team: 'red' });
          const now = await again.next('connected');
          expect(now.id).toBe(missed2.id);

          // admin delete: lobby_deleted, then the stream ends cleanly
          await server.delete(`/v3/lobbies/default/${lobbyId}`);
          expect((await again.next('lobby_deleted')).data).toEqual({ id: lobbyId, reason: 'admin' });
          await again.ended();
        } finally {
          again.close();
        }
      } finally {
        host.close();
      }
      // no lobby, no stream
      const none = await api.get('/v3/lobbies/default/me/events', as('sse-host'));
      expect(none.status).toBe(404);
    });

    it('streams lobby_deleted (host_left) to a member when the host of a close-on-host-leave lobby leaves, then ends the stream', async () => {
      const lobby = await api.post('/v3/lobbies/duo', {}, as('close-host'));
      const lobbyId: string = lobby.body.id;
      expect((await api.post('/v3/lobbies/duo/join', { lobbyId }, as('close-guest'))).status).toBe(200);
      const guest = lobbyEvents(p.baseUrl, p.clientKey, 'duo', 'close-guest');
      try {
        const connected = await guest.next('connected');
        expect(ids(connected.data)).toEqual(['close-host', 'close-guest']);
        expect((await api.delete('/v3/lobbies/duo/me', as('close-host'))).status).toBe(200);
        const deleted = await guest.next('lobby_deleted');
        expect(deleted.data).toEqual({ id: lobbyId, reason: 'host_left' });
        expect(revisionOf(lobbyId, deleted.id)).toBeGreaterThan(revisionOf(lobbyId, connected.id));
        await guest.ended();
        // one live change, one event: no lobby_updated for the host's departure before it
        expect(guest.events.filter((e) => e.type !== 'ping').map((e) => e.type)).toEqual(['connected', 'lobby_deleted']);
      } finally {
        guest.close();
      }
      expect((await api.get('/v3/lobbies/duo/me', as('close-guest'))).status).toBe(404);
    });

    it('sends ping ({}) on an open stream, carrying the id of the last event sent', async () => {
      const lobby = await api.post('/v3/lobbies/default', {}, as('ping-host'));
      const lobbyId: string = lobby.body.id;
      const host = lobbyEvents(p.baseUrl, p.clientKey, 'default', 'ping-host');
      try {
        const connected = await host.next('connected');
        const first = await host.next('ping', () => true, 5_000);
        expect(first).toEqual({ type: 'ping', id: connected.id, data: {} });
        await api.post('/v3/lobbies/default/join', { lobbyId }, as('ping-guest'));
        const updated = await host.next('lobby_updated');
        expect(revisionOf(lobbyId, updated.id)).toBeGreaterThan(revisionOf(lobbyId, connected.id));
        const later = await host.next('ping', () => true, 5_000);
        expect(later).toEqual({ type: 'ping', id: updated.id, data: {} });
        // every ping repeats the id of the event before it
        host.events.forEach((e, i) => {
          if (e.type === 'ping') expect(e.id).toBe(host.events.slice(0, i).reverse().find((x) => x.type !== 'ping')!.id);
        });
      } finally {
        host.close();
      }
    });

    // Distributed mode runs two gateway replicas (standalone is one process).
    if (mode === 'distributed') it('serves a player\'s event stream from any gateway replica while writes go through another', async () => {
      const other = p.gatewayUrls![1];
      const created = await api.post('/v3/lobbies/default', {}, as('replica-host'));
      const stream = lobbyEvents(other, p.clientKey, 'default', 'replica-host');
      try {
        expect((await stream.next('connected')).data.id).toBe(created.body.id);
        await api.post('/v3/lobbies/default/join', { lobbyId: created.body.id }, as('replica-guest'));
        expect(ids((await stream.next('lobby_updated')).data)).toEqual(['replica-host', 'replica-guest']);
        await client(other, p.clientKey).patch('/v3/lobbies/default/me', { state: { via: 'other' } }, as('replica-guest'));
        expect((await stream.next('lobby_updated')).data.players[1].state).toEqual({ via: 'other' });
      } finally {
        stream.close();
      }
    });

    it('deletes an idle lobby after the config timeout, and removes members silent past heartbeatTimeout (an open stream counts)', async () => {
      const idle = await api.post('/v3/lobbies/quick', {}, as('idle-host'));
      expect(idle.status).toBe(201);
      await eventually(() => server.get(`/v3/lobbies/quick/${idle.body.id}`), (r) => r.status === 404, 20_000, 'idle lobby deleted');

      const pulse = await api.post('/v3/lobbies/pulse', {}, as('pulse-host'));
      await api.post('/v3/lobbies/pulse/join', { lobbyId: pulse.body.id }, as('pulse-quiet'));
      await api.post('/v3/lobbies/pulse/join', { lobbyId: pulse.body.id }, as('pulse-listener'));
      const listening = lobbyEvents(p.baseUrl, p.clientKey, 'pulse', 'pulse-listener');
      try {
        await listening.next('connected');
        const beat = setInterval(() => void api.post('/v3/lobbies/pulse/me/heartbeat', undefined, as('pulse-host')), 1_000);
        try {
          const pruned = await eventually(() => server.get(`/v3/lobbies/pulse/${pulse.body.id}`), (r) => r.status === 200 && r.body.currentPlayers === 2, 20_000, 'quiet member removed');
          expect(ids(pruned.body).sort()).toEqual(['pulse-host', 'pulse-listener']);
          await new Promise((r) => setTimeout(r, 5_000));
          expect((await server.get(`/v3/lobbies/pulse/${pulse.body.id}`)).body.currentPlayers).toBe(2);
        } finally {
          clearInterval(beat);
        }
      } finally {
        listening.close();
      }
    });

    it('keeps an idle lobby alive while a member holds its event stream open; once closed, deletes it (lobby_deleted reason idle on replay)', async () => {
      // config `linger`: timeout 5 s; nobody sends a request after the create
      const lobby = await api.post('/v3/lobbies/linger', {}, as('linger-host'));
      expect(lobby.status).toBe(201);
      const lobbyId: string = lobby.body.id;
      const stream = lobbyEvents(p.baseUrl, p.clientKey, 'linger', 'linger-host');
      let connectedId: string;
      try {
        connectedId = (await stream.next('connected')).id;
        await sleep(8_000);
        expect((await server.get(`/v3/lobbies/linger/${lobbyId}`)).status).toBe(200);
        expect(stream.events.map((e) => e.type)).not.toContain('lobby_deleted');
        expect(stream.errors).toBe(0);
      } finally {
        stream.close();
      }
      await eventually(() => server.get(`/v3/lobbies/linger/${lobbyId}`), (r) => r.status === 404, 15_000, 'idle lobby deleted after its stream closed');
      // what the member missed: lobby_deleted with reason idle, and the stream ends (no lobby, no connected)
      const again = lobbyEvents(p.baseUrl, p.clientKey, 'linger', 'linger-host', { lastEventId: connectedId });
      try {
        const deleted = await again.next('lobby_deleted');
        expect(deleted.data).toEqual({ id: lobbyId, reason: 'idle' });
        expect(revisionOf(lobbyId, deleted.id)).toBeGreaterThan(revisionOf(lobbyId, connectedId));
        await again.ended();
        expect(again.events.filter((e) => e.type !== 'ping').map((e) => e.type)).toEqual(['lobby_deleted']);
      } finally {
        again.close();
      }
    });

    it('starts a game server for the lobby (starting → in_game), ends the match, and returns to waiting when the server stops on its own', async () => {
      await uploadSample(server);
      const created = await api.post('/v3/lobbies/default', { region: 'us-east', settings: { map: 'dust' } }, as('game-host'));
      await api.post('/v3/lobbies/default/join', { lobbyId: created.body.id, state: { team: 'red' } }, as('game-guest'));
      // a member's event stream sees the whole cycle (checked after end-match)
      const watch = lobbyEvents(p.baseUrl, p.clientKey, 'default', 'game-guest');
      closeAfter.push(() => watch.close());
      const connected = await watch.next('connected');
      expect(connected.data.status).toBe('waiting');
      expect((await api.post('/v3/lobbies/default/me/start', undefined, as('game-guest'))).status).toBe(403);
      expect((await api.post('/v3/lobbies/default/me/end-match', undefined, as('game-host'))).status).toBe(409);
      const starting = await api.post('/v3/lobbies/default/me/start', undefined, as('game-host'));
      expect(starting.status).toBe(200);
      expect(starting.body.status).toBe('starting');
      const inGame = await eventually(() => api.get('/v3/lobbies/default/me', as('game-guest')), (r) => r.body.status === 'in_game', 30_000, 'in_game');
      expect(inGame.body.server).toMatchObject({ instance_id: expect.any(String), status: 'running', region: 'us-east' });
      const serverId = inGame.body.server.instance_id;
      // the servers read model may show the run a moment after the lobby (another service's projection)
      const running = await eventually(() => server.get(`/v3/servers/${serverId}`), (r) => r.body.status === 'running', 10_000, 'server running');
      expect(running.body).toMatchObject({ status: 'running', custom_data: { lobby_id: created.body.id } });

      expect((await api.post('/v3/lobbies/default/me/end-match', undefined, as('game-guest'))).status).toBe(403);
      const ended = await api.post('/v3/lobbies/default/me/end-match', undefined, as('game-host'));
      expect(ended.status).toBe(200);
      expect(ended.body).toMatchObject({ status: 'waiting', server: null, matchmaking: null, settings: { map: 'dust' } });
      expect(ended.body.players).toEqual([{ id: 'game-host', state: {}, isHost: true }, { id: 'game-guest', state: { team: 'red' }, isHost: false }]);
      await watch.next('lobby_updated', (e) => e.data.status === 'waiting');
      watch.close();
      const lobbyId: string = created.body.id;
      const updates = watch.events.filter((e) => e.type === 'lobby_updated');
      const revisions = [connected, ...updates].map((e) => revisionOf(lobbyId, e.id));
      for (let i = 1; i < revisions.length; i++) expect(revisions[i]).toBeGreaterThan(revisions[i - 1]);
      const statuses = updates.map((e) => e.data.status).filter((st, i, all) => i === 0 || all[i - 1] !== st);
      expect(statuses).toEqual(['starting', 'in_game', 'waiting']);
      for (const e of updates.filter((u) => u.data.status === 'starting')) {
        if (e.data.server !== null) expect(e.data.server).toMatchObject({ instance_id: serverId, status: 'launching' });
      }
      expect(updates.find((u) => u.data.status === 'in_game')!.data.server).toMatchObject({ instance_id: serverId, status: 'running', region: 'us-east' });
      expect(updates[updates.length - 1].data).toMatchObject({ status: 'waiting', server: null, currentPlayers: 2 });
      await eventually(() => server.get(`/v3/servers/${serverId}`), (r) => r.body.status === 'stopped', 20_000, 'server stopped');

      // again; this time the server is stopped from outside: the lobby goes back to waiting by itself
      const restart = await api.post('/v3/lobbies/default/me/start', undefined, as('game-host'));
      const second = await eventually(() => api.get('/v3/lobbies/default/me', as('game-host')), (r) => r.body.status === 'in_game', 30_000, 'in_game again').catch((err: Error) => {
        throw new Error(`${err.message}\nsecond start answered ${restart.status} ${JSON.stringify(restart.body)}\n${p.output().slice(-6000)}`);
      });
      expect(second.body.server.instance_id).not.toBe(serverId);
      expect((await server.delete(`/v3/servers/${second.body.server.instance_id}`)).status).toBe(200);
      const back = await eventually(() => api.get('/v3/lobbies/default/me', as('game-host')), (r) => r.body.status === 'waiting', 20_000, 'waiting after the server stopped');
      expect(back.body.server).toBeNull();
      expect(back.body.currentPlayers).toBe(2);

      // late join: refused in game unless the lobby allows it
      await api.post('/v3/lobbies/default/me/start', undefined, as('game-host'));
      await eventually(() => api.get('/v3/lobbies/default/me', as('game-host')), (r) => r.body.status === 'in_game', 30_000, 'in_game a third time');
      expect((await api.post('/v3/lobbies/default/join', { lobbyId: created.body.id }, as('game-late'))).status).toBe(400);
      expect((await api.patch('/v3/lobbies/default/me/settings', { allowLateJoin: true }, as('game-host'))).status).toBe(200);
      const late = await api.post('/v3/lobbies/default/join', { lobbyId: created.body.id }, as('game-late'));
      expect(late.status).toBe(200);
      expect(late.body).toMatchObject({ status: 'in_game', currentPlayers: 3 });
      // deleting the lobby stops its server
      const serverOfThird = late.body.server.instance_id;
      await server.delete(`/v3/lobbies/default/${created.body.id}`);
      await eventually(() => server.get(`/v3/servers/${serverOfThird}`), (r) => r.body.status === 'stopped', 20_000, 'server of a deleted lobby stopped');
    });

    it('answers browser preflights and puts CORS headers on every response, errors included', async () => {
      const preflight = await fetch(`${p.baseUrl}/v3/lobbies/default/join`, {
        method: 'OPTIONS', headers: { origin: 'https://game.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'api-key, x-player-id, content-type' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
      expect(preflight.headers.get('access-control-allow-headers')).toContain('x-player-id');
      const missing = await fetch(`${p.baseUrl}/v3/lobbies/default/me/events?api_key=${p.clientKey}&player_id=nobody-here`, { headers: { origin: 'https://game.example' } });
      expect(missing.status).toBe(404);
      expect(missing.headers.get('access-control-allow-origin')).toBe('*');
    });

    it('limits player lobby writes per player (x-player-id), reads per key, and event streams not at all', async () => {
      const admin = { authorization: 'Bearer e2e-admin-token', 'content-type': 'application/json' };
      const patch = (limits: object) => fetch(`${p.baseUrl}/admin/projects/${p.projectId}`, { method: 'PATCH', headers: admin, body: JSON.stringify({ rate_limits: limits }) });
      expect((await patch({ read_per_second: 100_000, write_per_second: 100_000, player_per_second: 3 })).status).toBe(200);
      try {
        // the key's principal (and its limits) is cached by the gateway for up to 5 s
        await new Promise((r) => setTimeout(r, 5_500));
        const burst = await Promise.all(Array.from({ length: 8 }, () => api.post('/v3/lobbies/default/me/heartbeat', {}, as('greedy'))));
        const limited = burst.filter((r) => r.status === 429);
        expect(limited.length).toBeGreaterThanOrEqual(4);
        expect(limited[0].headers.get('x-ratelimit-limit')).toBe('3');
        expect(limited[0].headers.get('retry-after')).toBeTruthy();
        expect((await api.post('/v3/lobbies/default/me/heartbeat', {}, as('patient'))).status).not.toBe(429);
        // browse and GET me are reads: the key's read bucket, however often one player asks
        const reads = await Promise.all(Array.from({ length: 8 }, (_, i) => api.get(i % 2 ? '/v3/lobbies/default' : '/v3/lobbies/default/me', as('greedy'))));
        expect(reads.filter((r) => r.status === 429)).toHaveLength(0);
        expect(reads[1].headers.get('x-ratelimit-limit')).toBe('100000');
        // an event stream draws on no bucket
        const events = await fetch(`${p.baseUrl}/v3/lobbies/default/me/events?api_key=${p.clientKey}&player_id=greedy`);
        expect(events.status).toBe(404);
        expect(events.headers.get('x-ratelimit-limit')).toBeNull();
      } finally {
        expect((await patch({ read_per_second: 100_000, write_per_second: 100_000, player_per_second: 100_000 })).status).toBe(200);
      }
    });
  });
}
