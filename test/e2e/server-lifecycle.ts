// Server lifecycle beyond start/stop, black-box over HTTP: restart with overrides, custom_data
// updates, TTL, auto-restart (at most 10), startup timeout, plans.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { client, eventually } from '../support/http';
import { tcpEcho } from '../support/game-client';
import { ADMIN_TOKEN, Platform } from '../support/processes';

type Api = ReturnType<typeof client>;
const ROOT = path.join(__dirname, '..', '..');
/** A game that binds nothing stops with STARTUP_FAILURE_TIMEOUT after this long in these suites. */
export const STARTUP_TIMEOUT_MS = 3000;

export async function uploadSample(api: Api, name = 'default'): Promise<void> {
  const zip = path.join(os.tmpdir(), `sp-life-${process.pid}-${Date.now()}.zip`);
  execFileSync(process.execPath, [path.join(ROOT, 'examples', 'zip-build.js'), zip]);
  await uploadBuild(api, name, readFileSync(zip));
}

/** Uploads a build ZIP under `name` and waits until it is ready. */
export async function uploadBuild(api: Api, name: string, zip: Buffer): Promise<void> {
  const ticket = await api.post(`/v3/builds/upload-url?name=${name}`);
  if (ticket.status !== 201) throw new Error(`upload-url: ${ticket.status} ${JSON.stringify(ticket.body)}`);
  await api.put(ticket.body.upload_url, zip, { 'content-type': 'application/zip' });
  await eventually(() => api.get(`/v3/builds/${ticket.body.build_id}`), (r) => r.body.status === 'ready', 20_000, 'build ready');
}

const running = (api: Api, id: string) => eventually(() => api.get(`/v3/servers/${id}`), (r) => r.body.status === 'running', 15_000, `server ${id} running`);
const stopped = (api: Api, id: string, ms = 15_000) => eventually(() => api.get(`/v3/servers/${id}`), (r) => r.body.status === 'stopped', ms, `server ${id} stopped`);

export function describeServerLifecycle(mode: string, start: () => Promise<Platform>) {
  describe(`server lifecycle (${mode})`, () => {
    jest.setTimeout(120_000);
    let p: Platform;
    let api: Api;

    beforeAll(async () => {
      p = await start();
      api = client(p.baseUrl, p.serverKey);
      await uploadSample(api);
    });
    afterAll(async () => {
      await p?.stop();
    });

    it('restarts on a new machine with new ports and overrides, keeping the instance id', async () => {
      const s = await api.post('/v3/servers/start', { name: 'before', region: 'us-east', custom_data: { map: 'a' }, service_type: 'persistent_world' });
      expect(s.body.match_id).toEqual(expect.any(String));
      expect(s.body.service_type).toBe('persistent_world');
      const first = await running(api, s.body.instance_id);
      const oldTcp = first.body.network_ports.find((x: any) => x.protocol === 'tcp');
      const r = await api.post(`/v3/servers/${s.body.instance_id}/restart`, { name: 'after', custom_data: { map: 'b' } });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ instance_id: s.body.instance_id, status: 'launching', name: 'after', custom_data: { map: 'b' }, started_at: null });
      const newTcp = r.body.network_ports.find((x: any) => x.protocol === 'tcp');
      expect(newTcp.external_port).not.toBe(oldTcp.external_port);
      await running(api, s.body.instance_id);
      expect(await tcpEcho(newTcp.host, newTcp.external_port, 'again')).toBe('echo: again');
      await expect(tcpEcho(oldTcp.host, oldTcp.external_port, 'x', 500)).rejects.toThrow();
      // A stopped server can be restarted too.
      await api.delete(`/v3/servers/${s.body.instance_id}`);
      const back = await api.post(`/v3/servers/${s.body.instance_id}/restart`);
      expect(back.body.status).toBe('launching');
      expect(back.body.stopped_at).toBeNull();
      await running(api, s.body.instance_id);
      await api.delete(`/v3/servers/${s.body.instance_id}`);
      expect((await api.post('/v3/servers/00000000-0000-4000-8000-000000000000/restart', {})).status).toBe(404);
      expect((await api.post(`/v3/servers/${s.body.instance_id}/restart`, { region: 'eu-west' })).status).toBe(422);
    });

    it('replaces custom_data, visible at once in get and list; 409 once stopped', async () => {
      const s = await api.post('/v3/servers/start', { name: 'data', region: 'eu-west', custom_data: { round: 1 } });
      const u = await api.post(`/v3/servers/${s.body.instance_id}/update`, { custom_data: { round: 2, players: ['a'] } });
      expect(u.status).toBe(200);
      expect(u.body.custom_data).toEqual({ round: 2, players: ['a'] });
      expect((await api.get(`/v3/servers/${s.body.instance_id}`)).body.custom_data).toEqual({ round: 2, players: ['a'] });
      const listed = (await api.get('/v3/servers?region=eu-west&status=launching')).body.servers.concat((await api.get('/v3/servers?region=eu-west&status=running')).body.servers);
      expect(listed.find((x: any) => x.instance_id === s.body.instance_id).custom_data).toEqual({ round: 2, players: ['a'] });
      expect((await api.post(`/v3/servers/${s.body.instance_id}/update`, {})).status).toBe(422);
      await api.delete(`/v3/servers/${s.body.instance_id}?shutdown_reason=PROCESS_EXITED`);
      expect((await api.post(`/v3/servers/${s.body.instance_id}/update`, { custom_data: {} })).status).toBe(409);
    });

    it('stops a server when its TTL runs out, counted from started_at', async () => {
      const s = await api.post('/v3/servers/start', { name: 'short', region: 'sea', ttl: 2 });
      expect(s.body.ttl).toBe(2);
      const r = await running(api, s.body.instance_id);
      const done = await stopped(api, s.body.instance_id, 10_000);
      const lived = Date.parse(done.body.stopped_at) - Date.parse(r.body.started_at);
      expect(lived).toBeGreaterThanOrEqual(1900);
      expect(lived).toBeLessThan(6000);
    });

    it('restarts a crashing game at most 10 times, then stops it', async () => {
      const s = await api.post('/v3/servers/start', { name: 'crashy', region: 'ap-south', auto_restart: true, startup_args: '--exit-after-ms 150' });
      const t0 = Date.now();
      await running(api, s.body.instance_id);
      const done = await stopped(api, s.body.instance_id, 60_000);
      // 11 runs of >= 150 ms each: it did restart, and it did give up.
      expect(Date.now() - t0).toBeGreaterThan(11 * 150);
      expect(done.body.network_ports).toEqual([]);
      const once = await api.post('/v3/servers/start', { name: 'no-restart', region: 'ap-south', startup_args: '--exit-after-ms 150' });
      await running(api, once.body.instance_id);
      await stopped(api, once.body.instance_id, 5_000);
    });

    it('stops a game that never binds its ports (startup timeout)', async () => {
      const s = await api.post('/v3/servers/start', { name: 'silent', region: 'us-west', startup_args: '--no-bind' });
      await new Promise((r) => setTimeout(r, 1000));
      expect((await api.get(`/v3/servers/${s.body.instance_id}`)).body.status).toBe('launching');
      const done = await stopped(api, s.body.instance_id, STARTUP_TIMEOUT_MS + 10_000);
      expect(done.body.started_at).toBeNull();
    });

    it('applies the free plan: small only, ttl forced to 3600, one active server', async () => {
      const made = await client(p.baseUrl).post('/admin/projects', { name: 'free one', plan: 'free' }, { authorization: `Bearer ${ADMIN_TOKEN}` });
      const free = client(p.baseUrl, made.body.server_key);
      await uploadSample(free);
      const big = await free.post('/v3/servers/start', { name: 'x', region: 'us-east', compute_size: 'medium' });
      expect(big.status).toBe(403);
      expect(big.body.error).toMatch(/free plan/);
      const first = await free.post('/v3/servers/start', { name: 'only', region: 'us-east', ttl: 60 });
      expect(first.status).toBe(201);
      expect(first.body.ttl).toBe(3600);
      const second = await free.post('/v3/servers/start', { name: 'second', region: 'us-east' });
      expect(second.status).toBe(403);
      await free.delete(`/v3/servers/${first.body.instance_id}`);
      const third = await free.post('/v3/servers/start', { name: 'third', region: 'us-east' });
      expect(third.status).toBe(201);
      await free.delete(`/v3/servers/${third.body.instance_id}`);
      expect((await api.post('/v3/servers/start', { name: 'long', region: 'us-east', ttl: 86401 })).status).toBe(422);
      expect((await api.post('/v3/servers/start', { name: 'moon', region: 'moon-base' })).status).toBe(422);
    });
  });
}
