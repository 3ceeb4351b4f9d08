import { healthPortFrom, HealthServer, startHealthServer } from './health-server';

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

describe('HEALTH_PORT', () => {
  it('is off when unset or empty, a port when set, and refused when not a port', () => {
    expect(healthPortFrom({})).toBeNull();
    expect(healthPortFrom({ HEALTH_PORT: '' })).toBeNull();
    expect(healthPortFrom({ HEALTH_PORT: '9464' })).toBe(9464);
    expect(() => healthPortFrom({ HEALTH_PORT: 'nine' })).toThrow('HEALTH_PORT must be a port number, not "nine"');
    expect(() => healthPortFrom({ HEALTH_PORT: '70000' })).toThrow('HEALTH_PORT must be a port number');
  });

  it('takes METRICS_PORT as the same setting when HEALTH_PORT is unset', () => {
    expect(healthPortFrom({ METRICS_PORT: '9465' })).toBe(9465);
    expect(healthPortFrom({ HEALTH_PORT: '', METRICS_PORT: '9465' })).toBe(9465);
    expect(healthPortFrom({ HEALTH_PORT: '9464', METRICS_PORT: '9465' })).toBe(9464);
    expect(healthPortFrom({ METRICS_PORT: '' })).toBeNull();
    expect(() => healthPortFrom({ METRICS_PORT: 'x' })).toThrow('METRICS_PORT must be a port number, not "x"');
  });
});
