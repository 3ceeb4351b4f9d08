// Views larger than NATS's 1 MiB message limit, made of input within our limits (issue 36 item 9,
// ADR-0019): a lobby of 100 players with 16 KiB of state each and 64 KiB of settings (a 1.7 MiB view),
// and 20 servers with 64 KiB of custom_data each (a 1.3 MiB list). Both modes answer the same.
import { randomUUID } from 'node:crypto';
import { client, eventually } from '../support/http';
import { ADMIN_TOKEN, Platform, startDistributed, startStandalone } from '../support/processes';
import { lobbyEvents } from '../support/sse';
import { uploadSample } from './server-lifecycle';

type Api = ReturnType<typeof client>;
const MAX_STATE = 16 * 1024;
const MAX_SETTINGS = 64 * 1024;
const MAX_CUSTOM_DATA = 65_536;
const PLAYERS = 100;
const SERVERS = 20;

/** `{"blob":"x…"}` of exactly `bytes` bytes of JSON: the most each limit allows. */
const filled = (bytes: number, tag: string) => ({ blob: `${tag}:`.padEnd(bytes - '{"blob":""}'.length, 'x') });

describeLargePayloads('standalone', () => startStandalone({ portRange: '29500-29699' }));
// Two gateways: the host's stream is on the second, every write goes through the first.
describeLargePayloads('distributed', () => startDistributed('29700-29899', {}, { gateways: 2 }));

function describeLargePayloads(mode: string, start: () => Promise<Platform>) {
  describe(`payloads over 1 MiB (${mode})`, () => {
    jest.setTimeout(120_000);
    let p: Platform;
    let api: Api;
    let server: Api;

    beforeAll(async () => {
      p = await start();
      api = client(p.baseUrl, p.clientKey);
      server = client(p.baseUrl, p.serverKey);
      // 20 servers at once: the pro plan has no active-server cap.
      const pro = await client(p.baseUrl).patch(`/admin/projects/${p.projectId}`, { plan: 'pro' }, { authorization: `Bearer ${ADMIN_TOKEN}` });
      expect(pro.status).toBe(200);
    });
    afterAll(async () => {
      await p?.stop();
    });

    it(`a lobby of ${PLAYERS} players with 16 KiB of state each and 64 KiB of settings: every join answered at once, reads work, the stream holds and carries every update`, async () => {
      const settings = await server.post('/v3/projects/settings', { lobby_configs: [{ name: 'huge', maxPlayers: PLAYERS }] });
      expect(settings.status).toBe(200);
      const as = (id: string) => ({ 'x-player-id': id });
      const player = (i: number) => `big-${mode}-${i}`;
      const created = await api.post('/v3/lobbies/huge', { name: 'Huge', settings: filled(MAX_SETTINGS, 'settings'), state: filled(MAX_STATE, player(0)) }, as(player(0)));
      expect(created.status).toBe(201);
      const lobbyId = created.body.id as string;

      const host = lobbyEvents(p.gatewayUrls?.[1] ?? p.baseUrl, p.clientKey, 'huge', player(0));
      try {
        await host.next('connected');
        const slowest = { ms: 0, i: 0 };
        for (let i = 1; i < PLAYERS; i++) {
          const began = Date.now();
          const joined = await api.post('/v3/lobbies/huge/join', { lobbyId, state: filled(MAX_STATE, player(i)) }, as(player(i)));
          expect([joined.status, joined.body?.currentPlayers]).toEqual([200, i + 1]);
          if (Date.now() - began > slowest.ms) Object.assign(slowest, { ms: Date.now() - began, i });
        }
        console.log(`large payloads (${mode}): ${PLAYERS - 1} joins, slowest ${slowest.ms} ms (join ${slowest.i})`);
        expect(slowest.ms).toBeLessThan(5000);

        // The whole view, as the last join left it.
        const full = (body: { players?: { id: string; state: { blob: string } }[]; settings?: { blob: string } }) =>
          body.players?.length === PLAYERS &&
          body.players.every((pl, i) => pl.id === player(i) && pl.state.blob.length === MAX_STATE - 11 && pl.state.blob.startsWith(`${player(i)}:`)) &&
          body.settings?.blob.length === MAX_SETTINGS - 11;
        const me = await api.get('/v3/lobbies/huge/me', as(player(PLAYERS - 1)));
        expect(me.status).toBe(200);
        expect(full(me.body)).toBe(true);
        expect(JSON.stringify(me.body).length).toBeGreaterThan(1.5 * 1024 * 1024);
        const admin = await server.get(`/v3/lobbies/huge/${lobbyId}`);
        expect(admin.status).toBe(200);
        expect(full(admin.body)).toBe(true);
        const browse = await api.get('/v3/lobbies/huge', as('browser'));
        expect(browse.status).toBe(200);
        expect(browse.body.lobbies.map((l: { id: string }) => l.id)).toEqual([lobbyId]);
        expect(full(browse.body.lobbies[0])).toBe(true);

        // Every join reached the host's stream (through the other gateway in distributed mode), the last
        // with the full view; the stream is still open.
        const last = await host.next('lobby_updated', (e) => e.data.players?.length === PLAYERS, 20_000);
        expect(full(last.data)).toBe(true);
        expect(last.id).toBe(`${lobbyId}:${PLAYERS - 1}`);
        const counts = host.events.filter((e) => e.type === 'lobby_updated').map((e) => e.data.players.length);
        expect(counts).toEqual(Array.from({ length: PLAYERS - 1 }, (_, i) => i + 2));
        expect(host.errors).toBe(0);

        // A change after that (64 KiB of settings again) also arrives in full; and a new stream opens with the whole lobby.
        const changed = await api.patch('/v3/lobbies/huge/me/settings', { settings: filled(MAX_SETTINGS, 'again') }, as(player(0)));
        expect(changed.status).toBe(200);
        const update = await host.next('lobby_updated', (e) => e.data.settings?.blob.startsWith('again:'));
        expect(update.data.players).toHaveLength(PLAYERS);
        const guest = lobbyEvents(p.baseUrl, p.clientKey, 'huge', player(50));
        try {
          const connected = await guest.next('connected');
          expect(connected.data.players).toHaveLength(PLAYERS);
          expect(connected.data.settings.blob.startsWith('again:')).toBe(true);
          // Reconnecting 10 revisions back replays them (to a player who was a member then), each the whole lobby.
          const replayed = lobbyEvents(p.baseUrl, p.clientKey, 'huge', player(50), { lastEventId: `${lobbyId}:${PLAYERS - 10}` });
          try {
            await replayed.next('connected');
            expect(replayed.events.filter((e) => e.type === 'lobby_updated').map((e) => e.data.players.length)).toEqual([...Array.from({ length: 9 }, (_, i) => 92 + i), PLAYERS]);
          } finally {
            replayed.close();
          }
        } finally {
          guest.close();
        }
        expect(host.errors).toBe(0);
        expect((await api.delete('/v3/lobbies/huge/me', as(player(0)))).status).toBe(200);
      } finally {
        host.close();
      }
    });

    it(`${SERVERS} servers with 64 KiB of custom_data each: the list answers while they run and after they stop`, async () => {
      await uploadSample(server);
      const tag = randomUUID().slice(0, 8);
      const started = await Promise.all(Array.from({ length: SERVERS }, (_, i) =>
        server.post('/v3/servers/start', { name: `big-${tag}-${i}`, region: 'us-east', custom_data: filled(MAX_CUSTOM_DATA, `${tag}-${i}`) })));
      expect(started.map((s) => s.status)).toEqual(Array(SERVERS).fill(201));
      const ids = started.map((s) => s.body.instance_id as string);
      const ours = (body: { servers?: { instance_id: string; status: string; custom_data: { blob: string } }[] }) => (body.servers ?? []).filter((s) => ids.includes(s.instance_id));
      const whole = (body: { servers?: { instance_id: string; status: string; custom_data: { blob: string } }[] }) =>
        ours(body).length === SERVERS && ours(body).every((s) => s.custom_data.blob.length === MAX_CUSTOM_DATA - 11);

      const running = await eventually(() => server.get('/v3/servers?limit=100&include_launching=true'), (r) => r.status === 200 && whole(r.body) && ours(r.body).every((s) => s.status === 'running'), 30_000, 'all running in the list');
      expect(JSON.stringify(running.body).length).toBeGreaterThan(1.2 * 1024 * 1024);

      const stops = await Promise.all(ids.map((id) => server.delete(`/v3/servers/${id}`)));
      expect(stops.map((s) => s.status)).toEqual(Array(SERVERS).fill(200));
      const after = await eventually(() => server.get('/v3/servers?limit=100&status=stopped'), (r) => r.status === 200 && whole(r.body), 30_000, 'all stopped in the list');
      expect(ours(after.body).every((s) => s.status === 'stopped')).toBe(true);
      expect((await server.get('/v3/servers?limit=100')).status).toBe(200);
    });
  });
}
