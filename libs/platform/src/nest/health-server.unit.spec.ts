import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { captureLogs } from '../../../logging/src/testing';
import { DEFAULT_OPS_PORT, HealthServer, opsPortFrom, startHealthServer, startOpsServer } from './health-server';

async function get(server: HealthServer, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`http://127.0.0.1:${server.port}${path}`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('a service health server (HEALTH_PORT)', () => {
  let server: HealthServer;
  beforeEach(async () => { server = await startHealthServer('builds', 0, '127.0.0.1'); });
  afterEach(() => server.close());

  it('is live from the first moment and ready only once started with passing checks', async () => {
    expect(await get(server, '/livez')).toEqual({ status: 200, body: { status: 'ok', service: 'builds' } });
    expect(await get(server, '/readyz')).toEqual({ status: 503, body: { status: 'starting', service: 'builds' } });
    server.ready({ bus: async () => undefined, database: async () => 1 });
    expect(await get(server, '/readyz')).toEqual({ status: 200, body: { status: 'ok', service: 'builds', checks: { bus: { ok: true }, database: { ok: true } } } });
  });

  it('answers 503 naming the failing dependency, and while stopping, whatever the checks say', async () => {
    server.ready({ bus: async () => undefined, eventStore: async () => { throw new Error('connection refused'); } });
    const down = await get(server, '/readyz');
    expect(down.status).toBe(503);
    expect(down.body.checks).toEqual({ bus: { ok: true }, eventStore: { ok: false, detail: 'connection refused' } });
    server.ready({ bus: async () => undefined });
    expect((await get(server, '/readyz')).status).toBe(200);
    server.stopping();
    expect(await get(server, '/readyz')).toEqual({ status: 503, body: { status: 'stopping', service: 'builds' } });
    expect((await get(server, '/livez')).status).toBe(200);
  });

  it('gives up on a check that hangs instead of hanging the probe', async () => {
    server.ready({ database: () => new Promise(() => undefined) });
    const started = Date.now();
    const r = await get(server, '/readyz');
    expect(r.status).toBe(503);
    expect(r.body.checks).toEqual({ database: { ok: false, detail: 'timed out' } });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('knows only its three routes', async () => {
    expect((await get(server, '/nope')).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${server.port}/metrics`)).status).toBe(200);
  });
});

describe('the ops port (HEALTH_PORT, METRICS_PORT)', () => {
  it('is 9464 when unset or empty, a port when set, off when "off", and refused when not a port', () => {
    expect(opsPortFrom({})).toEqual({ port: DEFAULT_OPS_PORT, from: 'default' });
    expect(DEFAULT_OPS_PORT).toBe(9464);
    expect(opsPortFrom({ HEALTH_PORT: '' })).toEqual({ port: 9464, from: 'default' });
    expect(opsPortFrom({ HEALTH_PORT: '9500' })).toEqual({ port: 9500, from: 'HEALTH_PORT' });
    expect(opsPortFrom({ HEALTH_PORT: '0' })).toEqual({ port: 0, from: 'HEALTH_PORT' });
    expect(opsPortFrom({ HEALTH_PORT: 'off' })).toBeNull();
    expect(opsPortFrom({ METRICS_PORT: 'OFF' })).toBeNull();
    expect(() => opsPortFrom({ HEALTH_PORT: 'nine' })).toThrow('HEALTH_PORT must be a port number or "off", not "nine"');
    expect(() => opsPortFrom({ HEALTH_PORT: '70000' })).toThrow('HEALTH_PORT must be a port number');
    expect(() => opsPortFrom({ HEALTH_PORT: '-1' })).toThrow('HEALTH_PORT must be a port number');
    expect(() => opsPortFrom({ HEALTH_PORT: '94.64' })).toThrow('HEALTH_PORT must be a port number');
  });

  it('takes METRICS_PORT as the same setting when HEALTH_PORT is unset', () => {
    expect(opsPortFrom({ METRICS_PORT: '9465' })).toEqual({ port: 9465, from: 'METRICS_PORT' });
    expect(opsPortFrom({ HEALTH_PORT: '', METRICS_PORT: '9465' })).toEqual({ port: 9465, from: 'METRICS_PORT' });
    expect(opsPortFrom({ HEALTH_PORT: '9464', METRICS_PORT: '9465' })).toEqual({ port: 9464, from: 'HEALTH_PORT' });
    expect(opsPortFrom({ METRICS_PORT: '' })).toEqual({ port: 9464, from: 'default' });
    expect(() => opsPortFrom({ METRICS_PORT: 'x' })).toThrow('METRICS_PORT must be a port number or "off", not "x"');
  });
});

describe('starting the ops server', () => {
  let taken: Server;
  let takenPort: number;
  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    takenPort = (taken.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

  it('serves on a port that was set, and fails the start, naming the setting, when that port is taken', async () => {
    const ops = await startOpsServer('builds', { METRICS_PORT: '0' }, '127.0.0.1');
    try {
      expect((await get(ops!, '/livez')).status).toBe(200);
    } finally {
      await ops?.close();
    }
    await expect(startOpsServer('builds', { METRICS_PORT: String(takenPort) }, '127.0.0.1')).rejects.toThrow(`METRICS_PORT ${takenPort}: in use by another process`);
  });

  it('is none, in one warning, when the default port is taken (another platform on this host)', async () => {
    // Holds 9464 for the test; if something else on this machine already does, the case is the same.
    const holder = createServer();
    const held = await new Promise<boolean>((resolve) => {
      holder.once('error', () => resolve(false));
      holder.listen(DEFAULT_OPS_PORT, '127.0.0.1', () => resolve(true));
    });
    const logs = captureLogs();
    try {
      expect(await startOpsServer('builds', {}, '127.0.0.1')).toBeNull();
      expect(logs.records().filter((r) => r.level === 'warn').map((r) => r.msg)).toEqual([
        'the ops port 9464 (probes and /metrics) is in use on this host, so this process serves neither; set METRICS_PORT to a free port (0: any), or METRICS_PORT=off',
      ]);
    } finally {
      logs.restore();
      if (held) await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
  });

  it('is none when off', async () => {
    expect(await startOpsServer('builds', { HEALTH_PORT: 'off' }, '127.0.0.1')).toBeNull();
  });
});
