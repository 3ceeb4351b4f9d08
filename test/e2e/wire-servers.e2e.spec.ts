// Wire compatibility of the v3 servers routes with the hosted service's clients (issue 35), black-box over
// HTTP in both deployments: the list's shape and query (include_launching, include_pool, offset, FastAPI
// booleans, unknown parameters ignored), an idempotent DELETE, the project logs across servers, and what
// operator scripts do (start with port_configs incl. tls_enabled; list with include_launching, then restart
// each server with a version_tag).
import { client, eventually } from '../support/http';
import { Platform, startDistributed, startStandalone } from '../support/processes';
import { uploadSample } from './server-lifecycle';

type Api = ReturnType<typeof client>;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SERVER_FIELDS = [
  'instance_id', 'name', 'status', 'network_ports', 'startup_args', 'service_type', 'compute_size', 'region', 'version_tag', 'version',
  'started_at', 'stopped_at', 'auto_restart', 'custom_data', 'ttl', 'is_pool_server', 'pool_claimed_at', 'match_id', 'created_at', 'updated_at',
];

function describeWireServers(mode: string, start: () => Promise<Platform>) {
  describe(`v3 servers on the wire (${mode})`, () => {
    jest.setTimeout(180_000);
    let p: Platform;
    let api: Api;
    // Started in this order in ap-south: launching stays launching (the sample game with --no-bind binds nothing
    // until the startup timeout), the others run.
    const ids = { launching: '', older: '', newer: '' };
    const running = (id: string) => eventually(() => api.get(`/v3/servers/${id}`), (r) => r.body.status === 'running', 30_000, `${id} running`);
    const listed = (res: { body: { servers: { instance_id: string }[] } }) => res.body.servers.map((s) => s.instance_id);

    beforeAll(async () => {
      p = await start();
      api = client(p.baseUrl, p.serverKey);
      await uploadSample(api);
      ids.launching = (await api.post('/v3/servers/start', { name: 'waits', region: 'ap-south', startup_args: '--no-bind' })).body.instance_id;
      ids.older = (await api.post('/v3/servers/start', { name: 'older', region: 'ap-south' })).body.instance_id;
      ids.newer = (await api.post('/v3/servers/start', { name: 'newer', region: 'ap-south' })).body.instance_id;
      await running(ids.older);
      await running(ids.newer);
    });
    afterAll(async () => {
      await p?.stop();
    });

    it('GET /v3/servers answers {total, servers, limit, offset, has_more}: running servers only, newest first', async () => {
      const res = await api.get('/v3/servers?region=ap-south');
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['has_more', 'limit', 'offset', 'servers', 'total']);
      expect(res.body).toMatchObject({ total: 2, limit: 50, offset: 0, has_more: false });
      expect(listed(res)).toEqual([ids.newer, ids.older]);
      for (const s of res.body.servers) {
        expect(Object.keys(s)).toEqual(expect.arrayContaining(SERVER_FIELDS));
        expect(s).toMatchObject({ status: 'running', region: 'ap-south', created_at: expect.stringMatching(ISO_MS), is_pool_server: false });
      }
      // next_token is gone: one way of paging
      expect(res.body).not.toHaveProperty('next_token');
    });

    it('include_launching adds launching servers; limit, offset, total and has_more page them', async () => {
      const all = await api.get('/v3/servers?region=ap-south&include_launching=true');
      expect(all.body).toMatchObject({ total: 3, has_more: false });
      expect(listed(all)).toEqual([ids.newer, ids.older, ids.launching]);
      const first = await api.get('/v3/servers?region=ap-south&include_launching=true&limit=2');
      expect(first.body).toMatchObject({ total: 3, limit: 2, offset: 0, has_more: true });
      expect(listed(first)).toEqual([ids.newer, ids.older]);
      const second = await api.get('/v3/servers?region=ap-south&include_launching=true&limit=2&offset=2');
      expect(second.body).toMatchObject({ total: 3, limit: 2, offset: 2, has_more: false });
      expect(listed(second)).toEqual([ids.launching]);
      const past = await api.get('/v3/servers?region=ap-south&include_launching=true&offset=10');
      expect(past.body).toMatchObject({ total: 3, servers: [], offset: 10, has_more: false });
      // status outweighs include_launching
      expect(listed(await api.get('/v3/servers?region=ap-south&status=launching'))).toEqual([ids.launching]);
    });

    it('reads query booleans as FastAPI does; anything else is 422 at ["query", name]', async () => {
      for (const yes of ['true', 'True', 'TRUE', '1', 'yes', 'on', 'Y']) {
        expect([yes, (await api.get(`/v3/servers?region=ap-south&include_launching=${yes}`)).body.total]).toEqual([yes, 3]);
      }
      for (const no of ['false', 'False', '0', 'no', 'off', 'n']) {
        expect([no, (await api.get(`/v3/servers?region=ap-south&include_launching=${no}`)).body.total]).toEqual([no, 2]);
      }
      for (const [name, bad] of [['include_launching', 'maybe'], ['include_launching', ''], ['include_pool', '2']]) {
        const res = await api.get(`/v3/servers?${name}=${bad}`);
        expect(res.status).toBe(422);
        expect(res.body).toMatchObject({ error: expect.any(String), status: 422, detail: [{ loc: ['query', name], msg: expect.any(String), type: 'bool_parsing' }] });
      }
      for (const [query, field] of [['limit=0', 'limit'], ['limit=101', 'limit'], ['offset=-1', 'offset'], ['offset=abc', 'offset'], ['offset=1.5', 'offset']]) {
        const res = await api.get(`/v3/servers?${query}`);
        expect([query, res.status, res.body.detail?.[0]?.loc]).toEqual([query, 422, ['query', field]]);
      }
    });

    it('ignores unknown query parameters on every route; unknown body fields on v3 are still refused', async () => {
      const plain = await api.get('/v3/servers?region=ap-south');
      const extra = await api.get('/v3/servers?region=ap-south&next_token=abc&page=2&sort=asc');
      expect([extra.status, listed(extra)]).toEqual([200, listed(plain)]);
      expect((await api.get(`/v3/servers/${ids.newer}?verbose=1`)).status).toBe(200);
      expect((await api.get('/v3/projects/settings?expand=all')).status).toBe(200);
      expect((await api.get('/v3/builds?cursor=x')).status).toBe(200);
      expect((await api.get(`/v3/servers/${ids.newer}/logs?trace=yes`)).status).toBe(200);
      expect((await client(p.legacyUrl, p.clientKey).get('/lobbies?name=default&unknown=1')).status).toBe(200);
      const body = await api.post('/v3/servers/start', { name: 'x', region: 'ap-south', colour: 'red' });
      expect(body.status).toBe(422);
      expect(body.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'colour'], type: 'extra_forbidden' })]);
    });

    it('include_pool lists the unclaimed pool servers, which are left out otherwise', async () => {
      expect((await api.post('/v3/projects/settings', { pool_config: { enabled: true, regions: { 'south-africa': { min_ready: 1, max: 1 } }, build_name: 'default' } })).status).toBe(200);
      try {
        const pool = await eventually(() => api.get('/v3/servers?region=south-africa&include_launching=true&include_pool=true'),
          (r) => r.body.total === 1, 60_000, 'a pool server');
        expect(pool.body.servers[0]).toMatchObject({ is_pool_server: true, pool_claimed_at: null });
        const ready = await eventually(() => api.get('/v3/servers?region=south-africa&include_pool=true'), (r) => r.body.total === 1, 60_000, 'the pool server running');
        expect(listed(ready)).toEqual(listed(pool));
        expect(await api.get('/v3/servers?region=south-africa&include_launching=true')).toMatchObject({ body: { total: 0, servers: [] } });
        expect((await api.get('/v3/servers?region=south-africa&include_pool=false')).body.total).toBe(0);
        // claimed, it is the project's: listed without include_pool
        const claimed = await api.post('/v3/servers/start', { name: 'claims', region: 'south-africa' });
        expect([claimed.status, claimed.body.instance_id]).toEqual([201, pool.body.servers[0].instance_id]);
        expect(listed(await api.get('/v3/servers?region=south-africa'))).toEqual([claimed.body.instance_id]);
      } finally {
        await api.post('/v3/projects/settings', { pool_config: null });
      }
    });

    it('DELETE is idempotent: a stopped server stopped again answers 200 as it stopped', async () => {
      const s = await api.post('/v3/servers/start', { name: 'twice', region: 'eu-north' });
      await running(s.body.instance_id);
      const first = await api.delete(`/v3/servers/${s.body.instance_id}`);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ instance_id: s.body.instance_id, status: 'stopped', network_ports: [], stopped_at: expect.stringMatching(ISO_MS) });
      const again = await api.delete(`/v3/servers/${s.body.instance_id}?shutdown_reason=TTL_EXPIRED`);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      // the OpenAPI document no longer promises a 409
      const doc = (await api.get('/openapi.json')).body;
      expect(Object.keys(doc.paths['/api/v3/servers/{instance_id}'].delete.responses)).not.toContain('409');
    });

    it('GET /v3/projects/logs: the lines of every server, oldest first, with server_name and region; start_time required', async () => {
      const both = await eventually(() => api.get('/v3/projects/logs?start_time=-10m'),
        (r) => r.status === 200 && [ids.older, ids.newer].every((id) => r.body.logs.some((l: any) => l.instance_id === id && l.message.startsWith('ERROR sample error line'))),
        30_000, 'lines of both servers');
      expect(Object.keys(both.body).sort()).toEqual(['logs', 'next_token']);
      const older = both.body.logs.find((l: any) => l.instance_id === ids.older && l.message.startsWith('WARN sample warning'));
      expect(older).toEqual({ timestamp: expect.stringMatching(ISO_MS), message: expect.any(String), level: 'warn', instance_id: ids.older, server_name: 'older', region: 'ap-south' });
      expect(both.body.logs.find((l: any) => l.instance_id === ids.newer)).toMatchObject({ server_name: 'newer', region: 'ap-south' });
      const times = both.body.logs.map((l: any) => Date.parse(l.timestamp));
      expect(times).toEqual([...times].sort((a, b) => a - b));
      expect(both.body.next_token).toBeNull();
      // a client key reads them too (read bucket), as it reads a server's logs
      expect((await client(p.baseUrl, p.clientKey).get('/v3/projects/logs?start_time=-10m')).status).toBe(200);
      // pages forward with next_token: the two pages are the first two lines
      const one = await api.get('/v3/projects/logs?start_time=-10m&limit=1');
      expect(one.body.logs).toEqual([both.body.logs[0]]);
      const two = await api.get(`/v3/projects/logs?start_time=-10m&limit=1&next_token=${encodeURIComponent(one.body.next_token)}`);
      expect(two.body.logs).toEqual([both.body.logs[1]]);
      // an ISO window that ends before the servers started holds nothing
      expect((await api.get('/v3/projects/logs?start_time=2020-01-01T00:00:00Z&end_time=2020-01-02T00:00:00Z')).body).toEqual({ logs: [], next_token: null });
      const missing = await api.get('/v3/projects/logs?end_time=now');
      expect(missing.status).toBe(422);
      expect(missing.body.detail).toEqual([expect.objectContaining({ loc: ['query', 'start_time'], type: 'missing' })]);
      for (const [query, field] of [['start_time=yesterday', 'start_time'], ['start_time=-1h&limit=1001', 'limit'], ['start_time=-1h&limit=0', 'limit'], ['start_time=-1h&next_token=garbage', 'next_token']]) {
        const res = await api.get(`/v3/projects/logs?${query}`);
        expect([query, res.status, res.body.detail?.[0]?.loc]).toEqual([query, 422, ['query', field]]);
      }
      expect((await client(p.baseUrl).get('/v3/projects/logs?start_time=-1h')).status).toBe(401);
    });

    it('operator scripts: start with port_configs incl. tls_enabled; list include_launching=true, then restart each with a version_tag', async () => {
      const started = await api.post('/v3/servers/start', {
        name: 'ops', region: 'us-south', match_id: 'ops-run',
        port_configs: [{ name: 'game', internal_port: 7777, protocol: 'tcp', tls_enabled: true }, { name: 'voice', internal_port: 7778, protocol: 'udp', tls_enabled: false }],
      });
      expect(started.status).toBe(201);
      const ports = Object.fromEntries(started.body.network_ports.map((x: any) => [x.name, x]));
      expect(ports.game).toMatchObject({ internal_port: 7777, protocol: 'tcp', tls_enabled: true, external_port: expect.any(Number), host: expect.any(String) });
      expect(ports.voice).toMatchObject({ internal_port: 7778, protocol: 'udp', tls_enabled: false });
      await running(started.body.instance_id);
      const second = await api.post('/v3/servers/start', { name: 'ops-2', region: 'us-south', match_id: 'ops-run' });
      expect(second.status).toBe(201);

      await uploadSample(api, 'beta');
      const list = await api.get('/v3/servers?include_launching=true&match_id=ops-run');
      expect(list.body.total).toBe(2);
      for (const s of list.body.servers) {
        const restarted = await api.post(`/v3/servers/${s.instance_id}/restart`, { version_tag: 'beta' });
        expect(restarted.status).toBe(200);
        expect(restarted.body).toMatchObject({ instance_id: s.instance_id, status: 'launching', version_tag: 'beta' });
      }
      for (const s of list.body.servers) expect((await running(s.instance_id)).body.version_tag).toBe('beta');
      // the restart keeps the start's port_configs (TLS flag included)
      const again = (await api.get(`/v3/servers/${started.body.instance_id}`)).body;
      expect(again.network_ports.find((x: any) => x.name === 'game')).toMatchObject({ tls_enabled: true });
    });
  });
}

describeWireServers('standalone', () => startStandalone({ portRange: '23100-23199' }));
describeWireServers('distributed', () => startDistributed('23200-23299'));
