// The newcomer story of the README, as a black-box HTTP suite run against any running platform.
import { execFileSync } from 'node:child_process';
import { readFileSync, existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { rawZip } from '../../apps/builds/src/zip/testing/raw-zip';
import { client, eventually } from '../support/http';
import { tcpEcho, udpEcho } from '../support/game-client';
import { ADMIN_TOKEN, Platform } from '../support/processes';

const ROOT = path.join(__dirname, '..', '..');

function sampleZip(): Buffer {
  const out = path.join(os.tmpdir(), `sp-sample-${process.pid}-${Date.now()}.zip`);
  execFileSync(process.execPath, [path.join(ROOT, 'examples', 'zip-build.js'), out]);
  return readFileSync(out);
}

export function describeNewcomerStory(mode: string, start: () => Promise<Platform>) {
  describe(`newcomer story (${mode})`, () => {
    jest.setTimeout(120_000);
    let p: Platform;
    let server: ReturnType<typeof client>;
    let clientApi: ReturnType<typeof client>;
    const admin = () => client(p.baseUrl, undefined);
    let adminHeaders: Record<string, string>;

    beforeAll(async () => {
      p = await start();
      adminHeaders = { authorization: `Bearer ${p.adminToken ?? ADMIN_TOKEN}` };
      server = client(p.baseUrl, p.serverKey);
      clientApi = client(p.baseUrl, p.clientKey);
    });
    afterAll(async () => {
      await p?.stop();
    });

    async function uploadBuild(name: string, zip: Buffer) {
      const ticket = await server.post(`/v3/builds/upload-url?name=${name}`);
      expect(ticket.status).toBe(201);
      const put = await server.put(ticket.body.upload_url, zip, { 'content-type': 'application/zip' });
      expect(put.status).toBe(200);
      expect(put.body.status).toBe('processing');
      return eventually(() => server.get(`/v3/builds/${ticket.body.build_id}`), (r) => r.body.status === 'ready' || r.body.status === 'failed', 20_000, 'build processed');
    }

    it('uploads the sample, starts a server in us-east, talks to it over TCP and UDP, and stops it', async () => {
      expect((await admin().get('/health')).status).toBe(200);
      const build = await uploadBuild('default', sampleZip());
      expect(build.body).toMatchObject({ status: 'ready', name: 'default', version: 1, executable_path: 'server', error: null });

      const started = await server.post('/v3/servers/start', { name: 'first match', region: 'us-east' });
      expect(started.status).toBe(201);
      expect(started.body).toMatchObject({ status: 'launching', region: 'us-east', version_tag: 'default', version: 1, compute_size: 'small', started_at: null, is_pool_server: false });
      expect(started.body.network_ports).toHaveLength(2);
      const id = started.body.instance_id;

      const running = await eventually(() => server.get(`/v3/servers/${id}`), (r) => r.body.status === 'running', 15_000, 'server running');
      expect(running.body.started_at).not.toBeNull();
      const tcp = running.body.network_ports.find((x: any) => x.protocol === 'tcp');
      const udp = running.body.network_ports.find((x: any) => x.protocol === 'udp');
      expect(await tcpEcho(tcp.host, tcp.external_port, 'hello')).toBe('echo: hello');
      expect(await udpEcho(udp.host, udp.external_port, 'ping')).toBe('echo: ping');

      const listed = await server.get('/v3/servers?status=running');
      expect(listed.body.servers.map((s: any) => s.instance_id)).toContain(id);

      const stopped = await server.delete(`/v3/servers/${id}`);
      expect(stopped.status).toBe(200);
      expect(stopped.body).toMatchObject({ status: 'stopped', network_ports: [] });
      expect(stopped.body.stopped_at).not.toBeNull();
      expect((await server.get(`/v3/servers/${id}`)).body.network_ports).toEqual([]);
      // DELETE is idempotent: stopping it again answers it as it stopped
      const again = await server.delete(`/v3/servers/${id}`);
      expect([again.status, again.body.stopped_at, again.body.network_ports]).toEqual([200, stopped.body.stopped_at, []]);
      // The game's TCP port closes once the machine is torn down.
      await eventually(() => tcpEcho(tcp.host, tcp.external_port, 'x', 500).then(() => 'open', () => 'closed'), (s) => s === 'closed', 10_000, 'port closed');
    });

    it('starts a server through the legacy v2 route (201)', async () => {
      const res = await clientApi.post('/v2/servers/start', { name: 'legacy', region: 'eu-west' });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(['compute_size', 'instance_id', 'name', 'network_ports', 'region', 'started_at', 'status', 'version', 'version_tag']);
      expect(res.body.status).toBe('launching');
      expect(res.body.network_ports[0].tls_enabled).toBe(false);
      expect((await server.delete(`/v3/servers/${res.body.instance_id}`)).status).toBe(200);
    });

    it('authenticates with api-key: 401 without, 403 for a client key on server-key routes', async () => {
      const none = await client(p.baseUrl).get('/v3/servers');
      expect(none.status).toBe(401);
      expect(none.body).toEqual({ error: 'Invalid or missing API key', status: 401 });
      expect((await client(p.baseUrl, 'pf_wrong').get('/v3/servers')).status).toBe(401);
      const forbidden = await clientApi.post('/v3/builds/upload-url?name=x');
      expect(forbidden.status).toBe(403);
      expect(forbidden.body.status).toBe(403);
      expect((await clientApi.post('/v3/projects/settings', { environment_variables: {} })).status).toBe(403);
      expect((await clientApi.get('/v3/projects/settings')).status).toBe(200);
    });

    it('validates input with 422 and the spec detail shape', async () => {
      const bad = await server.post('/v3/servers/start', { name: 'x', region: 'moon', extra: 1 });
      expect(bad.status).toBe(422);
      expect(bad.body.error).toBeTruthy();
      expect(bad.body.detail).toEqual(expect.arrayContaining([
        expect.objectContaining({ loc: ['body', 'region'], type: 'enum' }),
        expect.objectContaining({ loc: ['body', 'extra'], type: 'extra_forbidden' }),
      ]));
      const missing = await server.post('/v3/servers/start', { region: 'us-east' });
      expect(missing.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'name'], type: 'missing' })]);
      expect((await server.get('/v3/servers/not-a-uuid')).status).toBe(422);
      expect((await server.get('/v3/servers/00000000-0000-4000-8000-000000000000')).status).toBe(404);
      const notJson = await server.post('/v3/servers/start', '{oops', { 'content-type': 'application/json' });
      expect(notJson.status).toBe(400);
      expect((await server.get('/v3/nothing-here')).status).toBe(404);
      const wrongMethod = await server.patch('/v3/servers/start', {});
      expect(wrongMethod.status).toBe(405);
      expect((await server.post('/v3/servers/start', { name: 'x', region: 'us-east', version_tag: 'nope' })).status).toBe(404);
    });

    it('isolates projects: another project gets 404 for this one\'s server and build', async () => {
      const made = await admin().post('/admin/projects', { name: 'other', plan: 'pro' }, adminHeaders);
      expect(made.status).toBe(201);
      expect(made.body.server_key).toMatch(/^pf_[A-Za-z0-9]{32}$/);
      expect(made.body.client_key).toMatch(/^pfclient_[A-Za-z0-9]{32}$/);
      const other = client(p.baseUrl, made.body.server_key);
      const mine = await server.post('/v3/servers/start', { name: 'mine', region: 'sea' });
      expect(mine.status).toBe(201);
      expect((await other.get(`/v3/servers/${mine.body.instance_id}`)).status).toBe(404);
      expect((await other.delete(`/v3/servers/${mine.body.instance_id}`)).status).toBe(404);
      expect((await other.get('/v3/servers')).body.servers).toEqual([]);
      const builds = await server.get('/v3/builds');
      expect((await other.get(`/v3/builds/${builds.body.builds[0].build_id}`)).status).toBe(404);
      expect((await other.delete(`/v3/builds/${builds.body.builds[0].build_id}`)).status).toBe(404);
      expect((await admin().post('/admin/projects', { name: 'x' })).status).toBe(401);
      await server.delete(`/v3/servers/${mine.body.instance_id}`);
    });

    it('rate-limits per key with X-RateLimit headers and 429, and an operator can raise the limit', async () => {
      const made = await admin().post('/admin/projects', { name: 'limited', plan: 'pro' }, adminHeaders);
      const limited = client(p.baseUrl, made.body.client_key);
      const first = await limited.get('/v3/servers');
      expect(first.headers.get('x-ratelimit-limit')).toBe('100');
      // Lower the read limit so a burst from this test reliably outruns the refill.
      const lowered = await admin().patch(`/admin/projects/${made.body.project_id}`, { rate_limits: { read_per_second: 3, write_per_second: 10, player_per_second: 10 } }, adminHeaders);
      expect(lowered.body.rate_limits.read_per_second).toBe(3);
      const results = await Promise.all(Array.from({ length: 12 }, () => limited.get('/v3/servers')));
      expect(results.filter((r) => r.status === 200).length).toBeLessThanOrEqual(6);
      const tooMany = results.filter((r) => r.status === 429);
      expect(tooMany.length).toBeGreaterThan(0);
      expect(tooMany[0].body).toEqual({ error: 'Rate limit exceeded', status: 429 });
      expect(tooMany[0].headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(tooMany[0].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      const raised = await admin().patch(`/admin/projects/${made.body.project_id}`, { rate_limits: { read_per_second: 5000, write_per_second: 100, player_per_second: 10 } }, adminHeaders);
      expect(raised.status).toBe(200);
      expect((await limited.get('/v3/servers')).headers.get('x-ratelimit-limit')).toBe('5000');
    });

    it('fails hostile or broken ZIPs with an error and writes nothing outside the build folder', async () => {
      const notZip = await uploadBuild('broken', Buffer.from('this is not a zip file at all'));
      expect(notZip.body.status).toBe('failed');
      expect(notZip.body.error).toMatch(/not a valid ZIP/i);
      const slip = await uploadBuild('slip', rawZip([{ name: '../../escaped.txt', data: Buffer.from('owned') }, { name: 'server', data: Buffer.from('#!/bin/sh\n'), mode: 0o100755 }]));
      expect(slip.body.status).toBe('failed');
      expect(slip.body.error).toMatch(/\.\./);
      const abs = await uploadBuild('abs', rawZip([{ name: '/tmp/sp-abs-escape.txt', data: Buffer.from('x') }]));
      expect(abs.body.status).toBe('failed');
      expect(existsSync('/tmp/sp-abs-escape.txt')).toBe(false);
      const bomb = await uploadBuild('bomb', rawZip([{ name: 'server', data: Buffer.alloc(64 * 1024 * 1024), method: 'deflate', mode: 0o100755 }]));
      expect(bomb.body.status).toBe('failed');
      expect(bomb.body.error).toMatch(/zip bomb/i);
      // (Containers keep their data dir inside the container: nothing to list from here.)
      if (p.dataDir) for (const dir of [p.dataDir, path.join(p.dataDir, 'builds')]) expect(readdirSync(dir)).not.toContain('escaped.txt');
      // A used upload URL cannot be used again.
      const ticket = await server.post('/v3/builds/upload-url?name=once');
      expect((await server.put(ticket.body.upload_url, sampleZip(), { 'content-type': 'application/zip' })).status).toBe(200);
      expect((await server.put(ticket.body.upload_url, sampleZip(), { 'content-type': 'application/zip' })).status).toBe(403);
    });

    it('versions builds per name and refuses to delete a build a running server uses', async () => {
      const v2 = await uploadBuild('default', sampleZip());
      expect(v2.body.version).toBe(2);
      const s = await server.post('/v3/servers/start', { name: 'pinned', region: 'eu-north', version_tag: 'default', version: 1 });
      expect(s.body.version).toBe(1);
      const v1 = (await server.get('/v3/builds?name=default')).body.builds.find((b: any) => b.version === 1);
      expect((await server.delete(`/v3/builds/${v1.build_id}`)).status).toBe(409);
      expect((await clientApi.delete(`/v3/builds/${v1.build_id}`)).status).toBe(403);
      await server.delete(`/v3/servers/${s.body.instance_id}`);
      const del = await server.delete(`/v3/builds/${v2.body.build_id}`);
      expect(del.body).toEqual({ status: 'build_deleted', build_id: v2.body.build_id });
      expect((await server.get(`/v3/builds/${v2.body.build_id}`)).status).toBe(404);
      const v3 = await uploadBuild('default', sampleZip());
      expect(v3.body.version).toBe(3);
    });

    it('updates settings, lets a project keep client keys off server control, and rotates keys', async () => {
      const updated = await server.post('/v3/projects/settings', {
        environment_variables: { MODE: 'ranked' },
        port_configs: [{ name: 'game', internal_port: 7777, protocol: 'udp' }, { name: 'game-tcp', internal_port: 7778, protocol: 'tcp', tls_enabled: false }],
      });
      expect(updated.status).toBe(200);
      expect(updated.body.environment_variables).toEqual({ MODE: 'ranked' });
      expect(updated.body.port_configs.map((p: any) => p.name)).toEqual(['game', 'game-tcp']);
      expect(updated.body.port_configs[0].id).toEqual(expect.any(String));
      expect(updated.body.auth_config).toEqual({ provider: 'none' });
      const bad = await server.post('/v3/projects/settings', { port_configs: [{ name: 'Bad Name', internal_port: 0, protocol: 'icmp' }] });
      expect(bad.status).toBe(422);
      expect(bad.body.detail.map((d: any) => d.loc.join('.'))).toEqual(expect.arrayContaining(['body.port_configs.0.name', 'body.port_configs.0.internal_port', 'body.port_configs.0.protocol']));
      expect((await server.get('/v3/projects/settings')).body.environment_variables).toEqual({ MODE: 'ranked' });

      expect((await server.post('/v3/projects/settings', { client_key_server_control: false })).body.client_key_server_control).toBe(false);
      const denied = await clientApi.post('/v3/servers/start', { name: 'client-started', region: 'us-west' });
      expect(denied.status).toBe(403);
      expect((await clientApi.get('/v3/servers')).status).toBe(200);
      await server.post('/v3/projects/settings', { client_key_server_control: true });
      const allowed = await clientApi.post('/v3/servers/start', { name: 'client-started', region: 'us-west' });
      expect(allowed.status).toBe(201);
      expect((await clientApi.delete(`/v3/servers/${allowed.body.instance_id}`)).status).toBe(200);

      const made = await admin().post('/admin/projects', { name: 'rotating', plan: 'pro' }, adminHeaders);
      const before = client(p.baseUrl, made.body.server_key);
      expect((await before.get('/v3/servers')).status).toBe(200);
      const rotated = await admin().post(`/admin/projects/${made.body.project_id}/keys/rotate`, undefined, adminHeaders);
      expect(rotated.status).toBe(200);
      expect(rotated.body.server_key).not.toBe(made.body.server_key);
      expect((await before.get('/v3/servers')).status).toBe(401);
      expect((await client(p.baseUrl, rotated.body.server_key).get('/v3/servers')).status).toBe(200);
      expect((await admin().post('/admin/projects/nope/keys/rotate', undefined, adminHeaders)).status).toBe(404);
    });

    it('lists servers newest first, filtered and paged with offset, limit, total and has_more', async () => {
      const ids: string[] = [];
      for (const name of ['page-1', 'page-2', 'page-3']) ids.push((await server.post('/v3/servers/start', { name, region: 'ap-north' })).body.instance_id);
      for (const id of ids) await eventually(() => server.get(`/v3/servers/${id}`), (r) => r.body.status === 'running', 20_000, `${id} running`);
      const first = await server.get('/v3/servers?region=ap-north&limit=2');
      expect(first.body.servers.map((s: any) => s.name)).toEqual(['page-3', 'page-2']);
      expect(first.body).toMatchObject({ total: 3, limit: 2, offset: 0, has_more: true });
      const second = await server.get('/v3/servers?region=ap-north&limit=2&offset=2');
      expect(second.body.servers.map((s: any) => s.name)).toEqual(['page-1']);
      expect(second.body).toMatchObject({ total: 3, limit: 2, offset: 2, has_more: false });
      expect((await server.get('/v3/servers?limit=0')).status).toBe(422);
      expect((await server.get('/v3/servers?offset=-1')).status).toBe(422);
      for (const id of ids) expect((await server.delete(`/v3/servers/${id}`)).status).toBe(200);
      const stopped = await server.get('/v3/servers?region=ap-north&status=stopped');
      expect(stopped.body.servers).toHaveLength(3);
    });

    it('serves OpenAPI 3.1 and a docs page without a key, and echoes x-request-id', async () => {
      const doc = await admin().get('/openapi.json');
      expect(doc.status).toBe(200);
      expect(doc.body.openapi).toBe('3.1.0');
      expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(['/api/v3/servers/start', '/api/v3/servers/{instance_id}', '/api/v3/builds/upload-url', '/api/v2/servers/start', '/api/health']));
      const page = await fetch(`${p.baseUrl}/docs`);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      const r = await server.get('/v3/servers', { 'x-request-id': 'trace-me-123' });
      expect(r.headers.get('x-request-id')).toBe('trace-me-123');
    });
  });
}
