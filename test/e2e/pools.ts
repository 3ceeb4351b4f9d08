// Warm pools, black-box over HTTP: kept topped up, claimed by matching starts (at once, never twice),
// refilled, rolled to a new build version without touching claimed servers, drained when disabled.
import { client, eventually } from '../support/http';
import { tcpEcho } from '../support/game-client';
import { ADMIN_TOKEN, Platform } from '../support/processes';
import { uploadSample } from './server-lifecycle';

type Api = ReturnType<typeof client>;

async function poolServers(api: Api, region: string) {
  const all = (await api.get(`/v3/servers?region=${region}&include_launching=true&include_pool=true&limit=100`)).body.servers as any[];
  return all.filter((s) => s.is_pool_server);
}
const unclaimedReady = async (api: Api, region: string) => (await poolServers(api, region)).filter((s) => !s.pool_claimed_at && s.status === 'running');

export function describePools(mode: string, start: () => Promise<Platform>) {
  describe(`warm pools (${mode})`, () => {
    jest.setTimeout(180_000);
    let p: Platform;
    let api: Api;
    const pool = (over: object = {}) => ({ pool_config: { enabled: true, regions: { 'us-east': { min_ready: 2, max: 3 } }, build_name: 'default', ...over } });

    beforeAll(async () => {
      p = await start();
      api = client(p.baseUrl, p.serverKey);
      await uploadSample(api);
    });
    afterAll(async () => {
      await p?.stop();
    });

    it('validates pool_config and keeps pools off the free plan', async () => {
      const bad = await api.post('/v3/projects/settings', { pool_config: { enabled: true, regions: { 'us-east': { min_ready: 5, max: 2 }, moon: { min_ready: 1, max: 1 } }, build_name: 'default' } });
      expect(bad.status).toBe(422);
      // A rollout that could not proceed (no surge and no unavailability), or a bound out of range.
      for (const rollout of [{ max_surge: 0, max_unavailable: 0 }, { max_surge: -1 }, { max_unavailable: 1.5 }, { max_surge: 1, extra: 1 }]) {
        const r = await api.post('/v3/projects/settings', pool({ rollout }));
        expect(r.status).toBe(422);
        expect(r.body.detail[0].loc.slice(0, 3)).toEqual(['body', 'pool_config', 'rollout']);
      }
      const made = await client(p.baseUrl).post('/admin/projects', { name: 'free', plan: 'free' }, { authorization: `Bearer ${ADMIN_TOKEN}` });
      const free = client(p.baseUrl, made.body.server_key);
      expect((await free.post('/v3/projects/settings', pool())).status).toBe(403);
    });

    it('keeps min_ready pool servers ready and hands one to a matching start at once', async () => {
      const set = await api.post('/v3/projects/settings', pool());
      expect(set.body.pool_config).toEqual({ enabled: true, regions: { 'us-east': { min_ready: 2, max: 3 } }, build_name: 'default', build_version: null, compute_size: 'small' });
      const ready = await eventually(() => unclaimedReady(api, 'us-east'), (l) => l.length === 2, 30_000, 'pool filled');
      expect(ready.every((s) => s.version === 1)).toBe(true);

      const t0 = Date.now();
      const claimed = await api.post('/v3/servers/start', { name: 'ranked #1', region: 'us-east', custom_data: { map: 'dust' }, ttl: 900, match_id: 'match-42' });
      const took = Date.now() - t0;
      expect(claimed.status).toBe(201);
      expect(claimed.body).toMatchObject({ is_pool_server: true, status: 'running', name: 'ranked #1', custom_data: { map: 'dust' }, ttl: 900, match_id: 'match-42' });
      expect(claimed.body.pool_claimed_at).toEqual(expect.any(String));
      expect(ready.map((s) => s.instance_id)).toContain(claimed.body.instance_id);
      expect(took).toBeLessThan(1000);
      const tcp = claimed.body.network_ports.find((x: any) => x.protocol === 'tcp');
      expect(await tcpEcho(tcp.host, tcp.external_port, 'claimed')).toBe('echo: claimed');
      // The game reads its own server with the server key to learn of the claim.
      // ...and sees exactly what the claim answered (the reply is the read model's view), but for what the
      // game itself reports meanwhile (the echo above is a player joining and leaving: `game`, `updated_at`).
      const withoutReports = ({ game: _game, updated_at: _updated, ...rest }: Record<string, unknown>) => rest;
      expect(withoutReports((await api.get(`/v3/servers/${claimed.body.instance_id}`)).body)).toEqual(withoutReports(claimed.body));
      expect((await api.post(`/v3/servers/${claimed.body.instance_id}/restart`, {})).status).toBe(409);

      // Refilled right after the claim.
      await eventually(() => unclaimedReady(api, 'us-east'), (l) => l.length >= 2, 30_000, 'pool refilled');
      // A start the pool cannot serve starts cold.
      const cold = await api.post('/v3/servers/start', { name: 'cold', region: 'us-east', use_pool: false });
      expect(cold.body.is_pool_server).toBe(false);
      await api.delete(`/v3/servers/${cold.body.instance_id}`);
    });

    it('never hands one pool server to two concurrent starts', async () => {
      await eventually(() => unclaimedReady(api, 'us-east'), (l) => l.length >= 2, 30_000, 'pool ready');
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => api.post('/v3/servers/start', { name: `burst-${i}`, region: 'us-east' })));
      expect(results.every((r) => r.status === 201)).toBe(true);
      const ids = results.map((r) => r.body.instance_id);
      expect(new Set(ids).size).toBe(6);
      const fromPool = results.filter((r) => r.body.is_pool_server);
      expect(fromPool.length).toBeGreaterThanOrEqual(2);
      for (const r of fromPool) expect(r.body.pool_claimed_at).not.toBeNull();
      for (const id of ids) await api.delete(`/v3/servers/${id}`);
    });

    it('rolls a new build version into the pool without touching claimed servers, and drains when disabled', async () => {
      await eventually(() => unclaimedReady(api, 'us-east'), (l) => l.length >= 2, 30_000, 'pool ready');
      const keep = await api.post('/v3/servers/start', { name: 'in a match', region: 'us-east' });
      expect(keep.body.is_pool_server).toBe(true);
      // One new server at a time above the target, none missing from it: watched while it rolls.
      const set = await api.post('/v3/projects/settings', pool({ rollout: { max_surge: 1, max_unavailable: 0 } }));
      expect(set.body.pool_config.rollout).toEqual({ max_surge: 1, max_unavailable: 0 });
      // The claim above is refilled first: the rollout starts from a full pool.
      await eventually(() => unclaimedReady(api, 'us-east'), (l) => l.length >= 2, 30_000, 'pool refilled');
      const seen = { fewestReady: Infinity, mostUnclaimed: 0 };
      let rolling = true;
      const watch = (async () => {
        while (rolling) {
          const unclaimed = (await poolServers(api, 'us-east')).filter((s) => !s.pool_claimed_at && ['launching', 'running'].includes(s.status));
          seen.fewestReady = Math.min(seen.fewestReady, unclaimed.filter((s) => s.status === 'running').length);
          seen.mostUnclaimed = Math.max(seen.mostUnclaimed, unclaimed.length);
        }
      })();
      await uploadSample(api); // version 2
      await eventually(() => unclaimedReady(api, 'us-east'), (l) => l.length >= 2 && l.every((s) => s.version === 2), 45_000, 'pool on version 2');
      rolling = false;
      await watch;
      expect(seen).toEqual({ fewestReady: 2, mostUnclaimed: 3 });
      const kept = await api.get(`/v3/servers/${keep.body.instance_id}`);
      expect(kept.body).toMatchObject({ status: 'running', version: 1 });

      await api.post('/v3/projects/settings', pool({ enabled: false }));
      await eventually(async () => (await poolServers(api, 'us-east')).filter((s) => !s.pool_claimed_at), (l) => l.length === 0, 30_000, 'pool drained');
      expect((await api.get(`/v3/servers/${keep.body.instance_id}`)).body.status).toBe('running');
      await api.delete(`/v3/servers/${keep.body.instance_id}`);
    });
  });
}
