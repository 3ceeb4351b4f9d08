// Pools sized by demand, black-box over HTTP (issue 38): a region with `demand` keeps nothing ready while
// nobody plays, grows as soon as a match forms in a matchmaking queue (before any server is claimed), and
// goes back to zero after its quiet spell; its settings are validated. And claim leases: a claimed pool
// server whose game reports no player within claim_lease_seconds is stopped, and a lobby holding it is told
// (its game ends); one with a player keeps on.
import net from 'node:net';
import { client, eventually } from '../support/http';
import { Platform } from '../support/processes';
import { uploadSample } from './server-lifecycle';

type Api = ReturnType<typeof client>;
const as = (playerId: string) => ({ 'x-player-id': playerId });

/** The platform's queue figures every half second: the pool hears of a forming match within it. */
export const DEMAND_ENV = { SPAWNPOINT_LOBBY_QUEUE_STATS_MS: '500' };

async function activePool(api: Api, region: string) {
  const all = (await api.get(`/v3/servers?region=${region}&include_launching=true&include_pool=true&limit=100`)).body.servers as any[];
  return all.filter((s) => s.is_pool_server && s.status !== 'stopped');
}

export function describePoolDemand(mode: string, start: () => Promise<Platform>) {
  describe(`pools sized by demand, claim leases (${mode})`, () => {
    jest.setTimeout(180_000);
    let p: Platform;
    let server: Api;
    let api: Api;
    const region = 'eu-west';
    const demand = { warmup_seconds: 5, headroom: 1, scale_to_zero_after_seconds: 4, scale_down_after_seconds: 0 };

    beforeAll(async () => {
      p = await start();
      server = client(p.baseUrl, p.serverKey);
      api = client(p.baseUrl, p.clientKey);
      await uploadSample(server);
      const settings = await server.post('/v3/projects/settings', { lobby_configs: [
        { name: 'arena', maxPlayers: 2, serverSettings: { version_tag: 'default' }, matchmaking: { modes: { duel: { teams: 2, playersPerTeam: 1 } } } },
      ] });
      expect(settings.status).toBe(200);
    });
    afterAll(async () => {
      await p?.stop();
    });

    it('validates a region\'s demand settings, and answers them as set', async () => {
      const bad = await server.post('/v3/projects/settings', { pool_config: { enabled: true, build_name: 'default', regions: { [region]: { min_ready: 0, max: 4, demand: { warmup_seconds: 0 } } } } });
      expect(bad.status).toBe(422);
      expect(JSON.stringify(bad.body)).toMatch(/warmup_seconds 1-600/);
      const unknown = await server.post('/v3/projects/settings', { pool_config: { enabled: true, build_name: 'default', regions: { [region]: { min_ready: 0, max: 4, demand: { surge: 3 } } } } });
      expect(unknown.status).toBe(422);
      const schedule = [{ from: '25:00', to: '02:00', min_ready: 1 }];
      expect((await server.post('/v3/projects/settings', { pool_config: { enabled: true, build_name: 'default', regions: { [region]: { min_ready: 0, max: 4, demand: { schedule } } } } })).status).toBe(422);
      // Nothing of the refused settings was kept.
      expect((await server.get('/v3/projects/settings')).body.pool_config).toBeNull();
    });

    it('keeps nothing ready without demand, grows when a match forms (before any claim), and goes back to zero after the quiet spell', async () => {
      const set = await server.post('/v3/projects/settings', { pool_config: { enabled: true, build_name: 'default', regions: { [region]: { min_ready: 1, max: 4, demand } } } });
      expect(set.status).toBe(200);
      expect(set.body.pool_config.regions[region]).toEqual({ min_ready: 1, max: 4, demand });
      // Never any demand: no server, min_ready notwithstanding (scale to zero).
      await new Promise((r) => setTimeout(r, 3_000));
      expect(await activePool(server, region)).toEqual([]);

      // One lobby searches alone in a mode of two: a match is forming, and nothing has been claimed.
      const lobby = await api.post('/v3/lobbies/arena', { region }, as('pd-ann'));
      expect(lobby.status).toBe(201);
      expect((await api.post('/v3/lobbies/arena/me/matchmaking', { mode: 'duel' }, as('pd-ann'))).status).toBe(200);
      // 1 forming match × (1 + headroom 1) = 2 ready.
      const grown = await eventually(() => activePool(server, region), (l) => l.filter((s) => s.status === 'running').length >= 2, 30_000, 'pool grown');
      expect(grown.every((s) => s.pool_claimed_at === null)).toBe(true);
      expect(grown.length).toBeLessThanOrEqual(4);
      // GET /v3/pools says what it keeps and why: the forecast from the forming match.
      const capacity = await server.get('/v3/pools');
      expect(capacity.status).toBe(200);
      expect(capacity.body).toMatchObject({ enabled: true, build_name: 'default', build_version: 1 });
      expect(capacity.body.regions).toEqual([expect.objectContaining({ region, sized_by: 'demand', min_ready: 1, max: 4, claimed: 0 })]);
      expect(capacity.body.regions[0].desired).toBeGreaterThanOrEqual(2);
      expect(capacity.body.regions[0].ready + capacity.body.regions[0].launching).toBeGreaterThanOrEqual(2);
      expect(capacity.body.regions[0].why.join(' ')).toMatch(/forecast [\d.]+ claims within the 5 s warm-up .*queues 1/);

      // The search ends; after 4 s without demand the region keeps nothing.
      expect((await api.delete('/v3/lobbies/arena/me/matchmaking', as('pd-ann'))).status).toBe(200);
      await eventually(() => activePool(server, region), (l) => l.length === 0, 30_000, 'pool back to zero');
    });

    it('stops a claimed pool server whose game reports no player within the claim lease, and keeps one that has a player', async () => {
      const lease = await server.post('/v3/projects/settings', { pool_config: { enabled: true, build_name: 'default', claim_lease_seconds: 5, regions: { 'us-east': { min_ready: 2, max: 3 } } } });
      expect(lease.status).toBe(200);
      expect(lease.body.pool_config.claim_lease_seconds).toBe(5);
      expect((await server.post('/v3/projects/settings', { pool_config: { enabled: true, build_name: 'default', claim_lease_seconds: 2, regions: { 'us-east': { min_ready: 2, max: 3 } } } })).status).toBe(422);
      await eventually(() => activePool(server, 'us-east'), (l) => l.filter((s) => s.status === 'running' && !s.pool_claimed_at).length >= 2, 60_000, 'pool filled');
      const empty = await server.post('/v3/servers/start', { name: 'nobody-came', region: 'us-east' });
      const played = await server.post('/v3/servers/start', { name: 'someone-came', region: 'us-east' });
      expect([empty.body.is_pool_server, played.body.is_pool_server]).toEqual([true, true]);
      // A player connects to the second and stays: the sample game reports one player through the game API.
      const tcp = played.body.network_ports.find((x: any) => x.protocol === 'tcp');
      const player = net.connect(tcp.external_port, tcp.host);
      try {
        await eventually(() => server.get(`/v3/servers/${played.body.instance_id}`), (r) => r.body.game?.players === 1, 15_000, 'player reported');
        const stopped = await eventually(() => server.get(`/v3/servers/${empty.body.instance_id}`), (r) => r.body.status === 'stopped', 30_000, 'lease expired');
        expect(Date.parse(stopped.body.stopped_at) - Date.parse(empty.body.pool_claimed_at)).toBeGreaterThanOrEqual(5_000);
        // Past its own lease too, the one with a player runs on.
        await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(played.body.pool_claimed_at) + 6_000 - Date.now())));
        expect((await server.get(`/v3/servers/${played.body.instance_id}`)).body.status).toBe('running');
      } finally {
        player.destroy();
      }
      await server.delete(`/v3/servers/${played.body.instance_id}`);

      // A lobby whose game got a pool server nobody joins: the lease stops it, and the lobby is told (its game ends).
      await eventually(() => activePool(server, 'us-east'), (l) => l.some((s) => s.status === 'running' && !s.pool_claimed_at), 60_000, 'pool refilled');
      expect((await api.post('/v3/lobbies/arena', { region: 'us-east' }, as('pd-lease'))).status).toBe(201);
      expect((await api.post('/v3/lobbies/arena/me/start', undefined, as('pd-lease'))).status).toBe(200);
      const inGame = await eventually(() => api.get('/v3/lobbies/arena/me', as('pd-lease')), (r) => r.body.status === 'in_game', 30_000, 'lobby in_game');
      const held = await server.get(`/v3/servers/${inGame.body.server.instance_id}`);
      expect([held.body.is_pool_server, typeof held.body.pool_claimed_at]).toEqual([true, 'string']);
      await eventually(() => server.get(`/v3/servers/${held.body.instance_id}`), (r) => r.body.status === 'stopped', 30_000, 'lobby server lease expired');
      await eventually(() => api.get('/v3/lobbies/arena/me', as('pd-lease')), (r) => r.body.status === 'waiting', 15_000, 'lobby told');
      await server.post('/v3/projects/settings', { pool_config: null });
    });

    it('returns a claimed pool server whose game resets itself to the pool when its lease expires; the lobby holding it is told', async () => {
      // The sample game says it resets itself (SAMPLE_RESETTABLE, from the project's variables like any pool server's).
      const set = await server.post('/v3/projects/settings', {
        environment_variables: { SAMPLE_RESETTABLE: '1' },
        pool_config: { enabled: true, build_name: 'default', claim_lease_seconds: 5, regions: { 'us-south': { min_ready: 1, max: 2 } } },
      });
      expect(set.status).toBe(200);
      const ready = await eventually(() => activePool(server, 'us-south'), (l) => l.some((x) => x.status === 'running' && !x.pool_claimed_at && x.game), 60_000, 'a resettable pool server');
      expect(ready.find((x) => x.game)!.game).toMatchObject({ players: 0 });
      expect((await api.post('/v3/lobbies/arena', { region: 'us-south' }, as('pd-reset'))).status).toBe(201);
      expect((await api.post('/v3/lobbies/arena/me/start', undefined, as('pd-reset'))).status).toBe(200);
      const inGame = await eventually(() => api.get('/v3/lobbies/arena/me', as('pd-reset')), (r) => r.body.status === 'in_game', 30_000, 'lobby in_game');
      const id: string = inGame.body.server.instance_id;
      const claimed = (await server.get(`/v3/servers/${id}`)).body;
      expect(claimed).toMatchObject({ is_pool_server: true, status: 'running' });
      expect(claimed.pool_claimed_at).not.toBeNull();
      // Nobody joins: after 5 s the claim is released, the machine runs on, unclaimed, under the pool's name and a new match.
      const back = await eventually(() => server.get(`/v3/servers/${id}`), (r) => r.body.pool_claimed_at === null, 30_000, 'released');
      expect(back.body).toMatchObject({ status: 'running', name: 'pool-us-south', custom_data: null });
      expect(back.body.match_id).not.toBe(claimed.match_id);
      await eventually(() => api.get('/v3/lobbies/arena/me', as('pd-reset')), (r) => r.body.status === 'waiting', 15_000, 'lobby told');
      // The game saw it (GET /v3/game/self) and reset; the server serves the next claim.
      await eventually(async () => (await server.get(`/v3/servers/${id}/logs?start_time=-1h`)).body.logs?.map((l: { message: string }) => l.message).join('\n') ?? '',
        (text) => text.includes('released back to the pool as "pool-us-south"'), 15_000, 'the game reset');
      const next = await server.post('/v3/servers/start', { name: 'next match', region: 'us-south' });
      expect(next.body.is_pool_server).toBe(true);
      await server.post('/v3/projects/settings', { pool_config: null, environment_variables: {} });
      for (const x of await activePool(server, 'us-south')) await server.delete(`/v3/servers/${x.instance_id}`);
    });
  });
}
