// Logs (issue 15, docs/operations.md "Logs"): every line a process writes on stdout is a JSON object with
// service, version, level, time and msg; a request's lines (the gateway's access line, and the services'
// lines written while handling it) carry the trace id of its trace, the one of the traceparent the client
// sent or got back; with tracing off the access line still carries the traceparent answered; LOG_LEVEL=warn
// drops every info line.
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { eventually } from '../support/http';
import { LOG_LEVEL_NAMES, LogLine, parseLogLines } from '../support/logs';
import { freePort, Platform, startDistributed, startStandalone } from '../support/processes';

jest.setTimeout(180_000);

const ROOT = path.join(__dirname, '..', '..');
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'libs', 'platform', 'package.json'), 'utf8')) as { version: string }).version;
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const traceparent = (traceId: string) => `00-${traceId}-00f067aa0ba902b7-01`;
const traceIdOf = (header: string | null) => /^00-([0-9a-f]{32})-[0-9a-f]{16}-0[01]$/.exec(header ?? '')?.[1];

/** Every line of one app's stdout: JSON with the common fields (parseLogLines throws at a line that is not JSON). */
function linesOf(p: Platform, app: string): LogLine[] {
  const lines = parseLogLines(p.stdout!(app));
  for (const line of lines) {
    expect(line).toEqual(expect.objectContaining({ service: app, version: VERSION, level: expect.any(String), time: expect.any(String), msg: expect.any(String) }));
    expect(LOG_LEVEL_NAMES).toContain(line.level);
    expect(new Date(line.time).toISOString()).toBe(line.time);
  }
  return lines;
}

async function get(p: Platform, route: string, headers: Record<string, string>): Promise<Response> {
  const res = await fetch(`${p.baseUrl}${route}`, { headers: { 'api-key': p.serverKey, ...headers } });
  await res.arrayBuffer();
  return res;
}

/** The gateway's access line of a request (written once the response is sent: waited for). */
async function accessLine(p: Platform, app: string, requestId: string): Promise<LogLine> {
  return eventually(async () => linesOf(p, app).find((l) => l.request_id === requestId && l.component === 'http'), (l) => l !== undefined, 10_000, `access line of ${requestId}`) as Promise<LogLine>;
}

describe('distributed, tracing on (an OTLP endpoint), LOG_LEVEL=debug', () => {
  let p: Platform;
  let sink: http.Server;
  const apps = ['projects', 'builds', 'servers', 'lobbies', 'matchmaking', 'backfill', 'gateway'];

  beforeAll(async () => {
    // Somewhere for the exporters to send their spans to; only the logs are looked at here.
    sink = http.createServer((req, res) => req.resume().on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}')));
    await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
    p = await startDistributed('28700-28799', { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, LOG_LEVEL: 'debug' });
  });

  afterAll(async () => {
    await p?.stop();
    await new Promise((resolve) => sink?.close(resolve));
  });

  it('gives the client\'s trace id to the access line and to the servers service\'s line of the same request', async () => {
    const res = await get(p, '/v3/servers', { traceparent: traceparent(TRACE_ID), 'x-request-id': 'logs-e2e-traced' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('logs-e2e-traced');
    const answered = res.headers.get('traceparent');
    expect(traceIdOf(answered)).toBe(TRACE_ID);

    const access = await accessLine(p, 'gateway', 'logs-e2e-traced');
    expect(access).toMatchObject({
      level: 'info', msg: 'GET /api/v3/servers 200', method: 'GET', route: '/api/v3/servers', status: 200,
      trace_id: TRACE_ID, span_id: answered!.slice(36, 52), project_id: p.projectId,
    });
    expect(access.duration_ms).toEqual(expect.any(Number));
    expect(access.duration_ms as number).toBeGreaterThan(0);
    // The servers service's line, in its own process, reached over NATS inside the same trace.
    const served = await eventually(async () => linesOf(p, 'servers').filter((l) => l.trace_id === TRACE_ID), (l) => l.length > 0, 10_000, 'a servers line in the trace');
    expect(served).toContainEqual(expect.objectContaining({ level: 'debug', msg: 'bus servers.list ok', subject: 'servers.list', outcome: 'ok', project_id: p.projectId, span_id: expect.stringMatching(/^[0-9a-f]{16}$/) }));
  });

  it('a request without a traceparent: the lines carry the trace the gateway answered with', async () => {
    const res = await get(p, '/v3/servers?limit=1', { 'x-request-id': 'logs-e2e-fresh' });
    expect(res.status).toBe(200);
    const traceId = traceIdOf(res.headers.get('traceparent'));
    expect(traceId).toBeDefined();
    expect(traceId).not.toBe(TRACE_ID);
    expect((await accessLine(p, 'gateway', 'logs-e2e-fresh')).trace_id).toBe(traceId);
    await eventually(async () => linesOf(p, 'servers').filter((l) => l.trace_id === traceId), (l) => l.length > 0, 10_000, 'a servers line in the answered trace');
  });

  it('an unmatched route is logged as such, never by its raw URL', async () => {
    const res = await get(p, '/v3/servers/not-a-real-route/with/ids', { 'x-request-id': 'logs-e2e-404' });
    expect(res.status).toBe(404);
    const access = await accessLine(p, 'gateway', 'logs-e2e-404');
    expect(access).toMatchObject({ route: 'unmatched', status: 404, msg: 'GET unmatched 404' });
    expect(JSON.stringify(access)).not.toContain('not-a-real-route');
  });

  it('every line of every process is a JSON object with service, version, level, time and msg', () => {
    for (const app of apps) {
      const lines = linesOf(p, app);
      expect([app, lines.length > 0]).toEqual([app, true]);
    }
    // The start-up lines are there, as JSON too.
    expect(linesOf(p, 'servers').some((l) => l.level === 'info' && /^spawnpoint servers service ready \(NATS /.test(l.msg))).toBe(true);
    expect(linesOf(p, 'gateway').some((l) => /^spawnpoint gateway listening on /.test(l.msg))).toBe(true);
  });
});

describe('standalone, tracing on but nothing sampled (ratio 0), LOG_LEVEL=debug', () => {
  let p: Platform;
  let sink: http.Server;

  beforeAll(async () => {
    sink = http.createServer((req, res) => req.resume().on('end', () => res.end('{}')));
    await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
    p = await startStandalone({ portRange: '28750-28769', env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, SPAWNPOINT_TRACE_SAMPLE_RATIO: '0', LOG_LEVEL: 'debug' } });
  });

  afterAll(async () => {
    await p?.stop();
    await new Promise((resolve) => sink?.close(resolve));
  });

  it('answers with the trace the request\'s lines carry, sampled or not', async () => {
    const res = await get(p, '/v3/servers', { 'x-request-id': 'logs-e2e-unsampled' });
    const answered = res.headers.get('traceparent');
    expect(answered).toMatch(/-00$/); // not sampled
    const traceId = traceIdOf(answered);
    expect((await accessLine(p, 'standalone', 'logs-e2e-unsampled')).trace_id).toBe(traceId);
    // Written before the response, so before its access line: there by now.
    const served = linesOf(p, 'standalone').filter((l) => l.component === 'bus' && l.trace_id === traceId);
    expect(served).toContainEqual(expect.objectContaining({ msg: 'bus servers.list ok', project_id: p.projectId }));
  });
});

describe('standalone, tracing off, default level', () => {
  let p: Platform;

  beforeAll(async () => {
    p = await startStandalone({ portRange: '28600-28649' });
  });

  afterAll(async () => {
    await p?.stop();
  });

  it('announces the API and the default project\'s keys in one line', () => {
    const announced = linesOf(p, 'standalone').find((l) => typeof l.server_key === 'string');
    expect(announced).toMatchObject({ level: 'info', api: p.baseUrl, project_id: p.projectId, server_key: p.serverKey, client_key: p.clientKey });
  });

  it('still logs the trace id of the traceparent it answers (the caller\'s, or a new one), and no debug lines', async () => {
    const traced = await get(p, '/v3/servers', { traceparent: traceparent(TRACE_ID), 'x-request-id': 'logs-e2e-standalone' });
    expect(traceIdOf(traced.headers.get('traceparent'))).toBe(TRACE_ID);
    expect(await accessLine(p, 'standalone', 'logs-e2e-standalone')).toMatchObject({ trace_id: TRACE_ID, route: '/api/v3/servers', status: 200 });
    const fresh = await get(p, '/health', { 'x-request-id': 'logs-e2e-health' });
    expect((await accessLine(p, 'standalone', 'logs-e2e-health')).trace_id).toBe(traceIdOf(fresh.headers.get('traceparent')));
    expect(linesOf(p, 'standalone').filter((l) => l.level === 'debug' || l.level === 'trace')).toEqual([]);
  });
});

describe('LOG_LEVEL=warn', () => {
  let child: ChildProcess | null = null;
  let dataDir = '';

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await new Promise((resolve) => child!.once('exit', resolve));
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('drops the info lines (start, access, stop) and keeps the process\'s output JSON', async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'sp-e2e-logs-warn-'));
    const port = await freePort();
    child = spawn(process.execPath, [path.join(ROOT, 'apps', 'standalone', 'dist', 'main.js')], {
      env: {
        PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), LEGACY_PORT: String(await freePort()), HOST: '127.0.0.1',
        SPAWNPOINT_DATA_DIR: dataDir, SPAWNPOINT_PORT_RANGE: '28650-28699', LOG_LEVEL: 'warn', METRICS_PORT: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += String(d)));
    child.stderr!.on('data', (d) => (stderr += String(d)));
    const exited = new Promise<number | null>((resolve) => child!.once('exit', resolve));
    // No start line to wait for at this level: the health check, and the keys it keeps in its data dir.
    const file = path.join(dataDir, 'default-project.json');
    await eventually(async () => existsSync(file) && (await fetch(`http://127.0.0.1:${port}/api/health`).then((r) => r.status, () => 0)) === 200, (ok) => ok, 90_000, `standalone up (output: ${stdout}${stderr})`);
    const { serverKey } = JSON.parse(readFileSync(file, 'utf8')) as { serverKey: string };
    const res = await fetch(`http://127.0.0.1:${port}/api/v3/servers`, { headers: { 'api-key': serverKey, 'x-request-id': 'logs-e2e-warn' } });
    expect(res.status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/api/v3/nothing`)).status).toBe(404);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);

    const lines = parseLogLines(stdout);
    expect(lines.filter((l) => !['warn', 'error', 'fatal'].includes(l.level)).map((l) => `${l.level} ${l.msg}`)).toEqual([]);
    expect(stdout).not.toContain('logs-e2e-warn');
    expect(stdout).not.toMatch(/SIGTERM received|stopped|is running/);
  });
});
