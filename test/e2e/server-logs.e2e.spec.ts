// A server's logs, log histogram and metrics, black-box over HTTP against both deployments: the sample
// game writes INFO lines, `WARN sample warning: no players yet` and `ERROR sample error line` at start.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { client, eventually } from '../support/http';
import { ADMIN_TOKEN, Platform, startDistributed, startStandalone } from '../support/processes';

type Api = ReturnType<typeof client>;
const ROOT = path.join(__dirname, '..', '..');
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function uploadSample(api: Api): Promise<void> {
  const zip = path.join(os.tmpdir(), `sp-logs-${process.pid}-${Date.now()}.zip`);
  execFileSync(process.execPath, [path.join(ROOT, 'examples', 'zip-build.js'), zip]);
  const ticket = await api.post('/v3/builds/upload-url?name=default');
  expect((await api.put(ticket.body.upload_url, readFileSync(zip), { 'content-type': 'application/zip' })).status).toBe(200);
  await eventually(() => api.get(`/v3/builds/${ticket.body.build_id}`), (r) => r.body.status === 'ready', 20_000, 'build ready');
}

function describeServerLogs(mode: string, start: () => Promise<Platform>) {
  describe(`server logs, histogram and metrics (${mode})`, () => {
    jest.setTimeout(120_000);
    let p: Platform;
    let api: Api;
    let id: string;

    beforeAll(async () => {
      p = await start();
      api = client(p.baseUrl, p.serverKey);
      await uploadSample(api);
      const started = await api.post('/v3/servers/start', { name: 'chatty', region: 'eu-west' });
      expect(started.status).toBe(201);
      id = started.body.instance_id;
      await eventually(() => api.get(`/v3/servers/${id}`), (r) => r.body.status === 'running', 15_000, 'server running');
    });
    afterAll(async () => {
      await p?.stop();
    });

    const startLines = () => eventually(() => api.get(`/v3/servers/${id}/logs`),
      (r) => r.status === 200 && r.body.logs.some((l: any) => l.message.startsWith('ERROR sample error line')), 15_000, 'start lines in the logs');

    it('serves the game\'s lines oldest first, each with its level, instance_id and region', async () => {
      const { body } = await startLines();
      const line = (prefix: string) => body.logs.find((l: any) => l.message.startsWith(prefix));
      expect(line('WARN sample warning: no players yet')).toEqual({ timestamp: expect.stringMatching(ISO_MS), message: 'WARN sample warning: no players yet', level: 'warn', instance_id: id, region: 'eu-west' });
      expect(line('ERROR sample error line')).toMatchObject({ level: 'error', instance_id: id, region: 'eu-west' });
      expect(line('INFO game server')).toMatchObject({ level: 'info' });
      const times = body.logs.map((l: any) => Date.parse(l.timestamp));
      expect(times).toEqual([...times].sort((a, b) => a - b));
      expect(body.next_token).toBeNull();
    });

    it('pages with limit and next_token, and searches case-insensitively', async () => {
      const all = (await startLines()).body.logs.map((l: any) => l.message);
      const first = await api.get(`/v3/servers/${id}/logs?limit=1&start_time=-10m`);
      expect(first.body.logs.map((l: any) => l.message)).toEqual([all[0]]);
      const second = await api.get(`/v3/servers/${id}/logs?limit=1&start_time=-10m&next_token=${encodeURIComponent(first.body.next_token)}`);
      expect(second.body.logs.map((l: any) => l.message)).toEqual([all[1]]);
      const found = await api.get(`/v3/servers/${id}/logs?search=WARNING`);
      expect(found.body.logs.map((l: any) => [l.level, l.message])).toEqual([['warn', 'WARN sample warning: no players yet']]);
      expect((await api.get(`/v3/servers/${id}/logs?start_time=-1h&end_time=-30m`)).body.logs).toEqual([]);
      expect((await client(p.baseUrl, p.clientKey).get(`/v3/servers/${id}/logs`)).status).toBe(200);
    });

    it('counts the lines per level in 5-second bins over the last 5 minutes', async () => {
      await startLines();
      const res = await api.get(`/v3/servers/${id}/log-histogram?start_time=-5m&step=5`);
      expect(res.status).toBe(200);
      expect(res.body.step).toBe(5);
      const { start, end } = res.body.window;
      expect(start).toMatch(ISO_MS);
      expect(Date.parse(end) - Date.parse(start)).toBe(5 * 60_000);
      const sum = (level: string) => res.body.buckets.reduce((n: number, b: any) => n + b[level], 0);
      expect({ warn: sum('warn'), error: sum('error') }).toEqual({ warn: 1, error: 1 });
      expect(sum('info')).toBeGreaterThanOrEqual(3); // starting, argv, listening
      for (const b of res.body.buckets) {
        expect(Date.parse(b.t) % 5000).toBe(0);
        expect(b.info + b.warn + b.error).toBeGreaterThan(0); // empty bins are omitted
      }
      const warnings = await api.get(`/v3/servers/${id}/log-histogram?start_time=-5m&search=warning`);
      expect(warnings.body.buckets.map((b: any) => [b.info, b.warn, b.error])).toEqual([[0, 1, 0]]);
      expect((await api.get(`/v3/servers/${id}/log-histogram`)).body.step).toBe(60);
    });

    it('answers 422 with the query field for bad steps, searches, windows and times', async () => {
      const cases: [string, string][] = [
        ['step=4', 'step'], ['step=3601', 'step'], [`search=${'x'.repeat(257)}`, 'search'],
        ['start_time=-1m&end_time=-2m', 'start_time'], ['start_time=yesterday', 'start_time'], ['end_time=soon', 'end_time'],
      ];
      // Unknown query parameters are ignored (decisions.md Conventions), not refused.
      expect((await api.get(`/v3/servers/${id}/log-histogram?bogus=1`)).status).toBe(200);
      for (const [query, field] of cases) {
        const res = await api.get(`/v3/servers/${id}/log-histogram?${query}`);
        expect([query, res.status]).toEqual([query, 422]);
        expect(res.body).toMatchObject({ status: 422, detail: [expect.objectContaining({ loc: ['query', field], msg: expect.any(String), type: expect.any(String) })] });
      }
      for (const query of ['limit=0', 'limit=1001', 'next_token=garbage', 'start_time=yesterday', `search=${'x'.repeat(257)}`]) {
        expect([query, (await api.get(`/v3/servers/${id}/logs?${query}`)).status]).toEqual([query, 422]);
      }
    });

    it('reports live CPU and memory of a running server, nulls where the process runtime cannot measure', async () => {
      const res = await api.get(`/v3/servers/${id}/metrics`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        cpu_percent: expect.any(Number), memory_bytes: expect.any(Number), memory_limit_bytes: null,
        network_rx_bytes: null, network_tx_bytes: null, sampled_at: expect.stringMatching(ISO_MS),
      });
      expect(res.body.memory_bytes).toBeGreaterThan(1024 * 1024);
    });

    it('hides one project\'s server from another (404), and a stopped server has no metrics', async () => {
      const made = await client(p.baseUrl).post('/admin/projects', { name: 'stranger', plan: 'pro' }, { authorization: `Bearer ${ADMIN_TOKEN}` });
      const other = client(p.baseUrl, made.body.server_key);
      for (const sub of ['logs', 'log-histogram', 'metrics']) {
        expect([sub, (await other.get(`/v3/servers/${id}/${sub}`)).status]).toEqual([sub, 404]);
      }
      expect((await api.get('/v3/servers/00000000-0000-4000-8000-000000000000/logs')).status).toBe(404);
      expect((await api.get('/v3/servers/not-a-uuid/log-histogram')).status).toBe(422);
      expect((await api.delete(`/v3/servers/${id}`)).status).toBe(200);
      const metrics = await api.get(`/v3/servers/${id}/metrics`);
      expect(metrics.body).toMatchObject({ cpu_percent: null, memory_bytes: null, sampled_at: expect.stringMatching(ISO_MS) });
      // Logs outlive the server.
      expect((await api.get(`/v3/servers/${id}/logs?search=${encodeURIComponent('sample error')}`)).body.logs).toHaveLength(1);
    });

    it('documents the three routes in OpenAPI', async () => {
      const doc = await client(p.baseUrl).get('/openapi.json');
      expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining([
        '/api/v3/servers/{instance_id}/logs', '/api/v3/servers/{instance_id}/log-histogram', '/api/v3/servers/{instance_id}/metrics',
      ]));
    });
  });
}

describeServerLogs('standalone', () => startStandalone({ portRange: '19500-19599' }));
describeServerLogs('distributed', () => startDistributed('19600-19699'));
