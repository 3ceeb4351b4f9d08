// Prometheus metrics on every process (issue 15): the README walkthrough (upload a build, start a server,
// stop it) on the distributed platform, each app with its own HEALTH_PORT, moves the gateway's RED
// metrics for the route templates used, the services' bus and append metrics, and the servers' domain
// gauges; no label value anywhere is an id. Standalone serves all of its services' metrics on one port.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { client, eventually } from '../support/http';
import { freePort, Platform, startDistributed, startStandalone } from '../support/processes';
import { Exposition, idLikeLabels, scrape, sum } from '../support/prometheus';

jest.setTimeout(180_000);

const ROOT = path.join(__dirname, '..', '..');

function sampleZip(): Buffer {
  const out = path.join(os.tmpdir(), `sp-metrics-${process.pid}-${Date.now()}.zip`);
  execFileSync(process.execPath, [path.join(ROOT, 'examples', 'zip-build.js'), out]);
  return readFileSync(out);
}

/** Upload the sample, start a server in us-east, wait for it to run, stop it; returns its id. */
async function walkthrough(p: Platform): Promise<string> {
  const api = client(p.baseUrl, p.serverKey);
  const ticket = await api.post('/v3/builds/upload-url?name=default');
  expect(ticket.status).toBe(200);
  expect((await api.put(ticket.body.upload_url, sampleZip(), { 'content-type': 'application/zip' })).status).toBe(200);
  await eventually(() => api.get(`/v3/builds/${ticket.body.build_id}`), (r) => r.body.status === 'ready', 20_000, 'build ready');
  const started = await api.post('/v3/servers/start', { name: 'metrics', region: 'us-east' });
  expect(started.status).toBe(201);
  const id: string = started.body.instance_id;
  await eventually(() => api.get(`/v3/servers/${id}`), (r) => r.body.status === 'running', 15_000, 'server running');
  expect((await client(p.baseUrl, p.serverKey).get('/v3/no-such-route')).status).toBe(404);
  return id;
}

describe('metrics (distributed: each app its own ops port)', () => {
  let p: Platform;
  beforeAll(async () => { p = await startDistributed('17600-17699', {}, { opsPorts: true }); });
  afterAll(async () => { await p?.stop(); });

  it('moves the gateway, bus, append and domain metrics along the walkthrough, with no id in any label', async () => {
    const ports = p.opsPorts!;
    const id = await walkthrough(p);
    const running = await scrape(ports.servers);
    expect(sum(running, 'spawnpoint_servers', { status: 'running', region: 'us-east' })).toBe(1);
    expect((await client(p.baseUrl, p.serverKey).delete(`/v3/servers/${id}`)).status).toBe(200);

    const gateway = await scrape(ports.gateway);
    expect(sum(gateway, 'spawnpoint_build_info', { service: 'gateway' })).toBe(1);
    expect(sum(gateway, 'spawnpoint_http_requests_total', { method: 'POST', route: '/api/v3/builds/upload-url', status: '200' })).toBe(1);
    expect(sum(gateway, 'spawnpoint_http_requests_total', { method: 'PUT', route: '/api/v3/builds/uploads/:token', status: '200' })).toBe(1);
    expect(sum(gateway, 'spawnpoint_http_requests_total', { method: 'GET', route: '/api/v3/builds/:id', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(sum(gateway, 'spawnpoint_http_requests_total', { method: 'POST', route: '/api/v3/servers/start', status: '201' })).toBe(1);
    expect(sum(gateway, 'spawnpoint_http_requests_total', { method: 'GET', route: '/api/v3/servers/:instance_id', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(sum(gateway, 'spawnpoint_http_requests_total', { method: 'DELETE', route: '/api/v3/servers/:instance_id', status: '200' })).toBe(1);
    expect(sum(gateway, 'spawnpoint_http_requests_total', { route: 'unmatched', status: '404' })).toBe(1);
    expect(sum(gateway, 'spawnpoint_http_request_duration_seconds_count', { method: 'POST', route: '/api/v3/servers/start' })).toBe(1);
    expect(gateway.types.spawnpoint_http_request_duration_seconds).toBe('histogram');

    const servers = await eventually(() => scrape(ports.servers), (e) => sum(e, 'spawnpoint_servers', { status: 'stopped', region: 'us-east' }) === 1, 10_000, 'stopped server counted');
    expect(sum(servers, 'spawnpoint_servers', { status: 'running' })).toBe(0);
    expect(sum(servers, 'spawnpoint_bus_requests_total', { subject: 'servers.start', outcome: 'ok' })).toBe(1);
    expect(sum(servers, 'spawnpoint_bus_requests_total', { subject: 'servers.stop', outcome: 'ok' })).toBe(1);
    expect(sum(servers, 'spawnpoint_bus_requests_total', { subject: 'servers.get', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(sum(servers, 'spawnpoint_bus_request_duration_seconds_count', { subject: 'servers.start' })).toBe(1);
    expect(sum(servers, 'spawnpoint_eventstore_appended_events_total')).toBeGreaterThanOrEqual(3);
    expect(sum(servers, 'spawnpoint_eventstore_append_duration_seconds_count')).toBeGreaterThanOrEqual(2);
    expect(servers.samples.some((s) => s.name === 'spawnpoint_projection_lag_seconds' && s.labels.projection)).toBe(true);
    expect(servers.samples.some((s) => s.name === 'spawnpoint_projection_parked_events' && s.labels.projection)).toBe(true);
    expect(servers.types.nodejs_eventloop_lag_p99_seconds).toBe('gauge');

    const builds = await scrape(ports.builds);
    expect(sum(builds, 'spawnpoint_bus_requests_total', { subject: 'builds.requestUpload', outcome: 'ok' })).toBe(1);
    expect(sum(builds, 'spawnpoint_eventstore_appended_events_total')).toBeGreaterThanOrEqual(2);

    const lobbies = await scrape(ports.lobbies);
    expect(lobbies.types.spawnpoint_lobbies).toBe('gauge');

    const all: Record<string, Exposition> = {};
    for (const [app, port] of Object.entries(ports)) all[app] = await scrape(port);
    for (const [app, e] of Object.entries(all)) {
      expect({ app, ids: idLikeLabels(e) }).toEqual({ app, ids: [] });
      expect({ app, info: sum(e, 'spawnpoint_build_info', { service: app }) }).toEqual({ app, info: 1 });
    }
  });
});

describe('metrics (standalone: one port for all of its services)', () => {
  let p: Platform;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    p = await startStandalone({ portRange: '17700-17799', env: { METRICS_PORT: String(port) } });
  });
  afterAll(async () => { await p?.stop(); });

  it('serves every service of the process on METRICS_PORT', async () => {
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    const id = await walkthrough(p);
    expect((await client(p.baseUrl, p.serverKey).delete(`/v3/servers/${id}`)).status).toBe(200);
    const e = await eventually(() => scrape(port), (x) => sum(x, 'spawnpoint_servers', { status: 'stopped', region: 'us-east' }) >= 1, 10_000, 'stopped server counted');
    expect(sum(e, 'spawnpoint_build_info', { service: 'standalone' })).toBe(1);
    for (const subject of ['projects.authenticate', 'builds.requestUpload', 'servers.start', 'servers.stop']) {
      expect({ subject, n: sum(e, 'spawnpoint_bus_requests_total', { subject, outcome: 'ok' }) }).toEqual({ subject, n: expect.any(Number) });
      expect(sum(e, 'spawnpoint_bus_requests_total', { subject })).toBeGreaterThanOrEqual(1);
    }
    expect(sum(e, 'spawnpoint_http_requests_total', { method: 'POST', route: '/api/v3/servers/start', status: '201' })).toBe(1);
    expect(sum(e, 'spawnpoint_eventstore_appended_events_total')).toBeGreaterThanOrEqual(5);
    expect(e.types.spawnpoint_lobbies).toBe('gauge');
    const projections = new Set(e.samples.filter((s) => s.name === 'spawnpoint_projection_lag_seconds').map((s) => s.labels.projection));
    expect(projections.size).toBeGreaterThanOrEqual(4);
    expect(idLikeLabels(e)).toEqual([]);
  });
});
