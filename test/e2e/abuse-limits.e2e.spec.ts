// Abuse limits (issue 11): the per-key bucket on player lobby writes, lobby-started servers under the
// plan's active-server cap and with a TTL, and (distributed, two gateways) rate limits shared by the
// gateway replicas. ADR-0008.
import { ADMIN_TOKEN, Platform, startDistributed, startStandalone } from '../support/processes';
import { client, eventually, Res } from '../support/http';
import { uploadSample } from './server-lifecycle';

type Api = ReturnType<typeof client>;
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const as = (player: string) => ({ 'x-player-id': player });

async function newProject(p: Platform, plan: 'free' | 'pro'): Promise<{ id: string; server: string; client: string }> {
  const made = await client(p.baseUrl).post('/admin/projects', { name: `limits ${plan}`, plan }, admin);
  expect(made.status).toBe(201);
  return { id: made.body.project_id, server: made.body.server_key, client: made.body.client_key };
}

/** Every gateway of the platform, in turn. */
const gateways = (p: Platform, key: string): Api[] => (p.gatewayUrls ?? [p.baseUrl]).map((u) => client(u, key));

function describeAbuseLimits(mode: string, start: () => Promise<Platform>): void {
  describe(`abuse limits (${mode})`, () => {
    jest.setTimeout(180_000);
    let p: Platform;
    beforeAll(async () => { p = await start(); });
    afterAll(() => p?.stop());

    it('player lobby writes of one key draw on a per-key bucket of 10 × player_per_second (heartbeats do not)', async () => {
      const project = await newProject(p, 'pro');
      // A small limit (player_per_second 2: the key's lobby-write bucket holds 20 and refills 20/s), so the
      // burst below empties it however slowly a loaded machine answers.
      const patched = await client(p.baseUrl).patch(`/admin/projects/${project.id}`, { rate_limits: { read_per_second: 1000, write_per_second: 1000, player_per_second: 2 } }, admin);
      expect(patched.status).toBe(200);
      const apis = gateways(p, project.client);
      // Each gateway caches the key's limits for up to 5 s: wait until every one applies the new limit.
      for (const [i, api] of apis.entries()) {
        await eventually(() => api.post('/v3/lobbies/default/me/heartbeat', undefined, as(`probe-${i}-${Date.now()}`)), (r) => r.headers.get('x-ratelimit-limit') === '2', 10_000, 'new limit');
      }
      await new Promise((r) => setTimeout(r, 1200)); // let the key's bucket fill again
      // 160 different players, one lobby write each (leaving no lobby: 404 once past the limits), over every gateway.
      const started = Date.now();
      const answers: Res[] = await Promise.all(Array.from({ length: 160 }, (_, i) => apis[i % apis.length].delete('/v3/lobbies/default/me', as(`crowd-${i}`))));
      const elapsedS = (Date.now() - started) / 1000;
      const refused = answers.filter((r) => r.status === 429);
      const passed = answers.filter((r) => r.status === 404);
      expect(refused.length + passed.length).toBe(160);
      // The key's bucket holds 20 (player_per_second 2 × 10) and refills 20/s: shared by all gateways
      // (a gateway may still hold a leased token or two for its next requests).
      expect(passed.length).toBeGreaterThanOrEqual(18);
      expect(passed.length).toBeLessThanOrEqual(20 + Math.ceil(20 * elapsedS) + 2);
      expect(refused.length).toBeGreaterThan(0);
      for (const r of refused) {
        expect(r.body).toEqual({ error: 'Rate limit exceeded', status: 429 });
        expect(r.headers.get('x-ratelimit-limit')).toBe('20');
        expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
      // A passed request shows the bucket that binds it: the player's own (10/s, 9 left) while the key has more.
      expect(passed.some((r) => r.headers.get('x-ratelimit-limit') === '2' || r.headers.get('x-ratelimit-limit') === '20')).toBe(true);
      // Heartbeats draw on the player's bucket only: a new player's heartbeat is not refused by the spent key bucket.
      const beat = await apis[0].post('/v3/lobbies/default/me/heartbeat', undefined, as('crowd-heartbeat'));
      expect(beat.status).toBe(404);
      expect(beat.headers.get('x-ratelimit-limit')).toBe('2');
      // The key's server-side routes are not affected (their own read/write buckets).
      expect((await client(p.baseUrl, project.server).get('/v3/servers')).status).toBe(200);
    });

    it('lobby-started servers count against the free plan cap: a second start is 403 and its lobby stays waiting', async () => {
      const project = await newProject(p, 'free');
      const server = client(p.baseUrl, project.server);
      const api = client(p.baseUrl, project.client);
      await uploadSample(server);
      const hosts = ['cap-a', 'cap-b', 'cap-c'];
      for (const h of hosts) expect((await api.post('/v3/lobbies/default', { region: 'us-east' }, as(h))).status).toBe(201);
      // All three hosts start at once: exactly one server fits the plan.
      const starts = await Promise.all(hosts.map((h) => api.post('/v3/lobbies/default/me/start', undefined, as(h))));
      const ok = starts.filter((r) => r.status === 200);
      const refused = starts.filter((r) => r.status === 403);
      expect(ok).toHaveLength(1);
      expect(refused).toHaveLength(2);
      for (const r of refused) expect(r.body).toEqual({ error: expect.stringMatching(/free plan allows 1 active server/), status: 403 });
      expect(ok[0].body).toMatchObject({ status: 'starting', server: { instance_id: expect.any(String), status: 'launching' } });
      const winner = hosts[starts.indexOf(ok[0])];
      for (const h of hosts.filter((x) => x !== winner)) {
        expect((await api.get('/v3/lobbies/default/me', as(h))).body).toMatchObject({ status: 'waiting', server: null });
      }
      // Launching and running (the list shows running servers only unless include_launching).
      const listed = await server.get('/v3/servers?include_launching=true');
      expect(listed.body.servers.filter((s: { status: string }) => s.status !== 'stopped')).toHaveLength(1);
      // The one server has the plan's TTL; once it is stopped another lobby may start.
      const serverId: string = ok[0].body.server.instance_id;
      expect((await server.get(`/v3/servers/${serverId}`)).body.ttl).toBe(3600);
      await eventually(() => api.get('/v3/lobbies/default/me', as(winner)), (r) => r.body.status === 'in_game', 30_000, 'in_game');
      expect((await server.delete(`/v3/servers/${serverId}`)).status).toBe(200);
      await eventually(() => api.get('/v3/lobbies/default/me', as(winner)), (r) => r.body.status === 'waiting', 20_000, 'winner back to waiting');
      const next = await api.post('/v3/lobbies/default/me/start', undefined, as(hosts.find((h) => h !== winner)!));
      expect(next.status).toBe(200);
      await server.delete(`/v3/servers/${next.body.server.instance_id}`);
    });

    it('lobby-started servers get the config ttl, or 3600 s when the config sets none (pro plan)', async () => {
      const project = await newProject(p, 'pro');
      const server = client(p.baseUrl, project.server);
      const api = client(p.baseUrl, project.client);
      await uploadSample(server);
      const settings = await server.post('/v3/projects/settings', { lobby_configs: [{ name: 'short', serverSettings: { version_tag: 'default', compute_size: 'small', ttl: 600 } }] });
      expect(settings.status).toBe(200);
      const ttls: Record<string, number> = {};
      for (const config of ['default', 'short']) {
        expect((await api.post(`/v3/lobbies/${config}`, { region: 'us-east' }, as(`ttl-${config}`))).status).toBe(201);
        const started = await api.post(`/v3/lobbies/${config}/me/start`, undefined, as(`ttl-${config}`));
        expect(started.status).toBe(200);
        const id: string = started.body.server.instance_id;
        ttls[config] = (await server.get(`/v3/servers/${id}`)).body.ttl;
        await server.delete(`/v3/servers/${id}`);
      }
      expect(ttls).toEqual({ default: 3600, short: 600 });
    });
  });
}

describeAbuseLimits('standalone', () => startStandalone({ portRange: '26200-26399' }));
describeAbuseLimits('distributed, two gateways', () => startDistributed('26400-26599', {}, { gateways: 2 }));

describe('rate limits shared by two gateways (distributed)', () => {
  jest.setTimeout(180_000);
  let p: Platform;
  beforeAll(async () => { p = await startDistributed('26600-26799', {}, { gateways: 2 }); });
  afterAll(() => p?.stop());

  it('a key limited to N/s sending 2N/s over both gateways is allowed N/s (±5 %), with the right headers', async () => {
    const N = 50;
    const project = await newProject(p, 'pro');
    const patched = await client(p.baseUrl).patch(`/admin/projects/${project.id}`, { rate_limits: { read_per_second: N, write_per_second: 10, player_per_second: 10 } }, admin);
    expect(patched.status).toBe(200);
    const apis = gateways(p, project.server);
    expect(apis).toHaveLength(2);
    // The key lookup is cached for 5 s by each gateway: wait until both see the new limit.
    for (const api of apis) await eventually(() => api.get('/v3/servers/00000000-0000-4000-8000-000000000000'), (r) => r.headers.get('x-ratelimit-limit') === String(N), 10_000, 'new limit');
    await new Promise((r) => setTimeout(r, 1200)); // let the bucket fill again

    // 2N requests per second for 8 s, alternating gateways, paced every 10 ms.
    const durationMs = 8000;
    const answers: Promise<Res>[] = [];
    const started = Date.now();
    for (let i = 0; Date.now() - started < durationMs; i++) {
      answers.push(apis[i % 2].get('/v3/servers/00000000-0000-4000-8000-000000000000'));
      const due = started + ((i + 1) * 1000) / (2 * N);
      await new Promise((r) => setTimeout(r, Math.max(0, due - Date.now())));
    }
    const done = await Promise.all(answers);
    const elapsedS = (Date.now() - started) / 1000;
    const allowed = done.filter((r) => r.status === 404);
    const refused = done.filter((r) => r.status === 429);
    expect(allowed.length + refused.length).toBe(done.length);
    // A token bucket allows its capacity (N) plus N per second.
    const expected = N + N * elapsedS;
    const accuracy = allowed.length / expected;
    console.log(`shared limits, 2 gateways: ${done.length} requests in ${elapsedS.toFixed(2)} s, ${allowed.length} allowed, expected ${expected.toFixed(0)}, accuracy ${accuracy.toFixed(3)}`);
    expect(accuracy).toBeGreaterThan(0.95);
    expect(accuracy).toBeLessThan(1.05);
    // Both gateways served and refused some: the limit is one for the key, not one per gateway.
    for (const r of allowed) {
      expect(r.headers.get('x-ratelimit-limit')).toBe(String(N));
      expect(Number(r.headers.get('x-ratelimit-remaining'))).toBeLessThan(N);
    }
    for (const r of refused) {
      expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
  });
});
