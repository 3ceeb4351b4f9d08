// The game API with the per-server token (ADR-0016), black-box: the token is read from the game
// process's environment in /proc, as the game itself gets it. It works only for its own server and only
// while it lives, is refused on every project route and by another project, SDK readiness holds a server
// at launching, and the sample game reports ready, players and a stop through @spawnpoint/game-server.
import net from 'node:net';
import { readFileSync } from 'node:fs';
import { client, eventually, Res } from '../support/http';
import { gameProcesses } from '../support/game-processes';
import { ADMIN_TOKEN, Platform } from '../support/processes';
import { uploadSample } from './server-lifecycle';

type Api = ReturnType<typeof client>;

/**
 * The env a server's game process runs with (its newest process: a restart starts another, and under load
 * the startup timeout may end the one just listed before its environ is read, so a vanished one is retried).
 */
async function gameEnv(p: Platform, serverId: string): Promise<Record<string, string>> {
  const environ = (pid: number) => {
    try {
      return readFileSync(`/proc/${pid}/environ`, 'utf8');
    } catch {
      return undefined;
    }
  };
  const raw = await eventually(
    async () => {
      const proc = gameProcesses(p.dataDir).filter((g) => g.instanceId === serverId).pop();
      return proc ? environ(proc.pid) : undefined;
    },
    (e) => e !== undefined,
    15_000,
    `game of ${serverId}`,
  );
  const vars = raw!.split('\0').filter(Boolean);
  return Object.fromEntries(vars.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const status = (api: Api, id: string, s: string, ms = 15_000) => eventually(() => api.get(`/v3/servers/${id}`), (r) => r.body.status === s, ms, `server ${id} ${s}`);

export function describeGameApi(mode: string, start: () => Promise<Platform>, startupTimeoutMs: number) {
  describe(`game API with the server token (${mode})`, () => {
    jest.setTimeout(120_000);
    let p: Platform;
    let api: Api;
    let anon: Api;

    beforeAll(async () => {
      p = await start();
      api = client(p.baseUrl, p.serverKey);
      anon = client(p.baseUrl);
      await uploadSample(api);
    });
    afterAll(async () => {
      await p?.stop();
    });

    it('gives every game its server id, token and API base; the sample reports ready and its players through the SDK', async () => {
      const s = await api.post('/v3/servers/start', { name: 'sdk sample', region: 'us-east' });
      expect(s.body).toMatchObject({ readiness: 'ports', game: null });
      const env = await gameEnv(p, s.body.instance_id);
      expect(env.SPAWNPOINT_SERVER_ID).toBe(s.body.instance_id);
      expect(env.SPAWNPOINT_API_URL).toBe(p.baseUrl);
      expect(env.SPAWNPOINT_SERVER_TOKEN).toMatch(new RegExp(`^spt_${s.body.instance_id}_`));
      // The sample game reports ready, 0 players and healthy (GET /v3/servers/{id} shows it as `game`).
      const reported = await eventually(() => api.get(`/v3/servers/${s.body.instance_id}`), (r) => r.body.game !== null, 15_000, 'game status');
      expect(reported.body).toMatchObject({ status: 'running', game: { players: 0, health: 'healthy', message: null, reported_at: expect.any(String) } });
      // A player connects over TCP: the game reports 1, and 0 again once it leaves.
      const tcp = reported.body.network_ports.find((x: { protocol: string }) => x.protocol === 'tcp');
      const socket = net.connect(tcp.external_port, tcp.host);
      await new Promise((resolve) => socket.once('connect', resolve));
      await eventually(() => api.get(`/v3/servers/${s.body.instance_id}`), (r) => r.body.game?.players === 1, 10_000, '1 player');
      socket.destroy();
      await eventually(() => api.get(`/v3/servers/${s.body.instance_id}`), (r) => r.body.game?.players === 0, 10_000, '0 players');
      // The game reads its own server with either header.
      const self = await anon.get('/v3/game/self', bearer(env.SPAWNPOINT_SERVER_TOKEN));
      expect(self.status).toBe(200);
      expect(self.body).toMatchObject({ instance_id: s.body.instance_id, name: 'sdk sample', status: 'running' });
      expect(self.body).not.toHaveProperty('projectId');
      expect((await anon.get('/v3/game/self', { 'x-server-token': env.SPAWNPOINT_SERVER_TOKEN })).body.instance_id).toBe(s.body.instance_id);
      const match = await anon.get('/v3/game/match', bearer(env.SPAWNPOINT_SERVER_TOKEN));
      expect(match.status).toBe(200);
      expect(match.body.match_id).toBe(s.body.match_id);
      // Every server's match has a backfill record once the backfill service has seen its start.
      if (match.body.backfill !== null) expect(match.body.backfill).toMatchObject({ match_id: s.body.match_id, instance_id: s.body.instance_id });
      // Health with a message; players kept.
      const h = await anon.put('/v3/game/status', { health: 'degraded', message: 'tick overrun' }, bearer(env.SPAWNPOINT_SERVER_TOKEN));
      expect(h.status).toBe(200);
      expect(h.body.game).toMatchObject({ players: 0, health: 'degraded', message: 'tick overrun' });
      // A bad body is a clear 422 and changes nothing.
      const bad = await anon.put('/v3/game/status', { players: -1, health: 'fine' }, bearer(env.SPAWNPOINT_SERVER_TOKEN));
      expect(bad.status).toBe(422);
      expect(bad.body).toMatchObject({ error: expect.any(String), detail: expect.any(Array) });
      expect((await api.get(`/v3/servers/${s.body.instance_id}`)).body.game).toMatchObject({ players: 0, health: 'degraded' });

      // Stopped: the token is refused at once, with the Error body.
      await api.delete(`/v3/servers/${s.body.instance_id}`);
      const after = await anon.get('/v3/game/self', bearer(env.SPAWNPOINT_SERVER_TOKEN));
      expect(after.status).toBe(401);
      expect(after.body).toEqual({ error: expect.stringMatching(/stopped/), status: 401 });
      expect((await anon.post('/v3/game/ready', undefined, bearer(env.SPAWNPOINT_SERVER_TOKEN))).status).toBe(401);
    });

    it('is refused on every project route, for another server and by another project', async () => {
      const a = await api.post('/v3/servers/start', { name: 'a', region: 'us-east' });
      const b = await api.post('/v3/servers/start', { name: 'b', region: 'us-east' });
      const tokenA = (await gameEnv(p, a.body.instance_id)).SPAWNPOINT_SERVER_TOKEN;
      const tokenB = (await gameEnv(p, b.body.instance_id)).SPAWNPOINT_SERVER_TOKEN;
      const secretA = tokenA.slice(tokenA.lastIndexOf('_') + 1);
      const refused = async (res: Promise<Res>) => {
        const r = await res;
        expect([r.status, typeof r.body?.error]).toEqual([401, 'string']);
      };
      // Project routes: as a bearer token, as an api-key, on reads and writes.
      for (const headers of [bearer(tokenA), { 'api-key': tokenA }, { 'x-server-token': tokenA }]) {
        await refused(anon.get(`/v3/servers/${a.body.instance_id}`, headers));
        await refused(anon.get('/v3/servers', headers));
        await refused(anon.delete(`/v3/servers/${a.body.instance_id}`, headers));
        await refused(anon.post('/v3/servers/start', { name: 'x', region: 'us-east' }, headers));
        await refused(anon.get(`/v3/servers/${a.body.instance_id}/backfill`, headers));
        await refused(anon.get('/v3/builds', headers));
        await refused(anon.get('/v3/projects/settings', headers));
        await refused(anon.post(`/v3/servers/${a.body.instance_id}/update`, { custom_data: {} }, headers));
      }
      await refused(anon.post('/admin/projects', { name: 'nope' }, bearer(tokenA)));
      // Game routes without a token, with the project's key, with a forged or tampered one.
      await refused(anon.get('/v3/game/self'));
      await refused(api.get('/v3/game/self'));
      await refused(anon.get('/v3/game/self', bearer(`spt_${b.body.instance_id}_${secretA}`)));
      await refused(anon.get('/v3/game/self', bearer(`${tokenA.slice(0, -1)}${tokenA.endsWith('A') ? 'B' : 'A'}`)));
      await refused(anon.get('/v3/game/self', bearer('spt_00000000-0000-4000-8000-000000000000_' + secretA)));
      await refused(anon.post('/v3/game/stop', undefined, bearer(`spt_${b.body.instance_id}_${secretA}`)));
      // Each token reaches its own server only; B still runs after A's token tried to stop it.
      expect((await anon.get('/v3/game/self', bearer(tokenB))).body.instance_id).toBe(b.body.instance_id);
      expect((await api.get(`/v3/servers/${b.body.instance_id}`)).body.status).not.toBe('stopped');

      // Another project: its server's token reads its own server only, and its keys see neither of ours (404).
      const created = await anon.post('/admin/projects', { name: 'game api other', plan: 'pro' }, { authorization: `Bearer ${ADMIN_TOKEN}` });
      expect(created.status).toBe(201);
      const other = client(p.baseUrl, created.body.server_key);
      await uploadSample(other, 'default');
      const c = await other.post('/v3/servers/start', { name: 'c', region: 'us-east' });
      const tokenC = (await gameEnv(p, c.body.instance_id)).SPAWNPOINT_SERVER_TOKEN;
      expect((await anon.get('/v3/game/self', bearer(tokenC))).body.instance_id).toBe(c.body.instance_id);
      expect((await other.get(`/v3/servers/${a.body.instance_id}`)).status).toBe(404);
      expect((await api.get(`/v3/servers/${c.body.instance_id}`)).status).toBe(404);
      await refused(anon.get(`/v3/servers/${c.body.instance_id}`, { 'api-key': tokenA }));
      await refused(anon.get(`/v3/game/self`, bearer(`spt_${c.body.instance_id}_${secretA}`)));

      for (const [k, s] of [[api, a], [api, b], [other, c]] as const) await k.delete(`/v3/servers/${s.body.instance_id}`);
    });

    it('a restart renews the token: the old one is refused, the new one works', async () => {
      const s = await api.post('/v3/servers/start', { name: 'restarted', region: 'us-east' });
      await status(api, s.body.instance_id, 'running');
      const old = (await gameEnv(p, s.body.instance_id)).SPAWNPOINT_SERVER_TOKEN;
      expect((await api.post(`/v3/servers/${s.body.instance_id}/restart`, {})).status).toBe(200);
      const renewed = await eventually(async () => (await gameEnv(p, s.body.instance_id)).SPAWNPOINT_SERVER_TOKEN, (t) => t !== old, 15_000, 'new token');
      // The new machine up (a start that outlived the startup timeout would stop the server, and its token with it).
      await status(api, s.body.instance_id, 'running');
      expect((await anon.get('/v3/game/self', bearer(old))).status).toBe(401);
      expect((await anon.get('/v3/game/self', bearer(renewed))).status).toBe(200);
      await api.delete(`/v3/servers/${s.body.instance_id}`);
    });

    it('readiness "sdk": launching with its ports bound until the game reports ready; the startup timeout still applies', async () => {
      const s = await api.post('/v3/servers/start', { name: 'sdk ready', region: 'us-east', readiness: 'sdk', startup_args: '--ready-after-ms 60000' });
      expect(s.status).toBe(201);
      expect(s.body.readiness).toBe('sdk');
      const token = (await gameEnv(p, s.body.instance_id)).SPAWNPOINT_SERVER_TOKEN;
      // The game answers on its port, yet the server stays launching (port detection would have run it by now).
      const tcp = s.body.network_ports.find((x: { protocol: string }) => x.protocol === 'tcp');
      await eventually(() => new Promise<boolean>((resolve) => {
        const c = net.connect(tcp.external_port, tcp.host, () => { c.destroy(); resolve(true); }).on('error', () => resolve(false));
      }), (ok) => ok, 10_000, 'port bound');
      await new Promise((r) => setTimeout(r, 500));
      expect((await api.get(`/v3/servers/${s.body.instance_id}`)).body.status).toBe('launching');
      const ready = await anon.post('/v3/game/ready', undefined, bearer(token));
      expect(ready.status).toBe(200);
      expect(ready.body).toMatchObject({ status: 'running', started_at: expect.any(String) });
      expect((await api.get(`/v3/servers/${s.body.instance_id}`)).body.status).toBe('running');
      expect((await anon.post('/v3/game/ready', undefined, bearer(token))).body.status).toBe('running');
      await api.delete(`/v3/servers/${s.body.instance_id}`);

      // Never ready: stopped by the startup timeout, as a game that never binds.
      const never = await api.post('/v3/servers/start', { name: 'never ready', region: 'us-east', readiness: 'sdk', startup_args: '--ready-after-ms 60000' });
      await status(api, never.body.instance_id, 'stopped', startupTimeoutMs + 15_000);
      const row = await api.get(`/v3/servers?status=stopped`);
      expect(row.body.servers.find((x: { instance_id: string }) => x.instance_id === never.body.instance_id)).toBeDefined();
      expect((await api.post('/v3/servers/start', { name: 'x', region: 'us-east', readiness: 'later' })).status).toBe(422);
    });

    it('requestStop from the sample game stops its server and ends its token', async () => {
      const s = await api.post('/v3/servers/start', { name: 'asks to stop', region: 'us-east', startup_args: '--stop-after-ms 300' });
      const token = (await gameEnv(p, s.body.instance_id)).SPAWNPOINT_SERVER_TOKEN;
      await status(api, s.body.instance_id, 'stopped');
      expect((await anon.get('/v3/game/self', bearer(token))).status).toBe(401);
      await eventually(async () => gameProcesses(p.dataDir).filter((g) => g.instanceId === s.body.instance_id).length, (n) => n === 0, 15_000, 'game process gone');
    });
  });
}
