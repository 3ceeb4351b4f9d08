// The distributed gateway is bus-only (issue 12): it opens no event store and runs no migrations. Started
// first, on an empty database it has every right on, and pointed at an EventStoreDB where nothing listens,
// it neither fails (it never opens that store) nor creates a single table: it waits for the services to
// migrate. Once they have, it listens, reports the services' health over the bus and keeps its edge
// state (Idempotency-Key answers) in their database.
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { createTestDatabase, TestDatabase } from '../support/databases';
import { eventually } from '../support/http';
import { NATS_URL } from '../support/nats';
import { ADMIN_TOKEN, freePort } from '../support/processes';

jest.setTimeout(120_000);

const ROOT = path.join(__dirname, '..', '..');
const SERVICES = ['projects', 'builds', 'servers', 'lobbies'];

describe('the distributed gateway (bus-only)', () => {
  let db: TestDatabase;
  let dataDir: string;
  const children: ChildProcess[] = [];
  const log: string[] = [];
  const output = () => log.join('');
  const healthPorts: Record<string, number> = {};
  const serviceProcs: Record<string, ChildProcess> = {};
  let gatewayApi = '';

  function launch(app: string, env: NodeJS.ProcessEnv): ChildProcess {
    const child = spawn(process.execPath, [path.join(ROOT, 'apps', app, 'dist', 'main.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d) => log.push(`[${app}] ${d}`));
    child.stderr!.on('data', (d) => log.push(`[${app}!] ${d}`));
    children.push(child);
    return child;
  }

  async function tables(): Promise<string[]> {
    const c = new Client({ connectionString: db.url });
    await c.connect();
    try {
      return (await c.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1")).rows.map((r) => r.tablename);
    } finally {
      await c.end();
    }
  }

  beforeAll(async () => {
    db = await createTestDatabase('gwonly');
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'sp-e2e-gateway-'));
  });
  afterAll(async () => {
    await Promise.all(children.map((c) => new Promise<void>((resolve) => {
      if (c.exitCode !== null || c.signalCode !== null) return resolve();
      c.once('exit', () => resolve());
      c.kill('SIGTERM');
    })));
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const baseEnv = async (port: number, databaseUrl: string): Promise<NodeJS.ProcessEnv> => ({
    PATH: process.env.PATH, HOME: process.env.HOME, HOST: '127.0.0.1', SPAWNPOINT_DATA_DIR: dataDir, SPAWNPOINT_ADMIN_TOKEN: ADMIN_TOKEN,
    SPAWNPOINT_PORT_RANGE: '27900-27949', DATABASE_URL: databaseUrl, NATS_URL, SPAWNPOINT_PUBLIC_URL: `http://127.0.0.1:${port}`,
    PORT: String(port), LEGACY_PORT: String(await freePort()), METRICS_PORT: '0',
  });

  it('stops at once and cleanly (exit 0) on SIGTERM while it waits for the services', async () => {
    const empty = await createTestDatabase('gwwait');
    try {
      const gateway = launch('gateway', await baseEnv(await freePort(), empty.url));
      await eventually(async () => output(), (o) => /gateway: waiting for the services' migrations/.test(o), 20_000, 'the gateway waiting for the schema');
      const exited = new Promise<number | null>((resolve) => gateway.once('exit', (code) => resolve(code)));
      gateway.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      await empty.drop();
    }
  });

  it('a service pointed at an EventStoreDB that is not there fails to start (exit 1), naming EVENTSTORE_URL', async () => {
    const other = await createTestDatabase('gwesdb');
    try {
      const service = launch('projects', { ...(await baseEnv(await freePort(), other.url)), EVENTSTORE_URL: 'esdb://127.0.0.1:1?tls=false' });
      const code = await new Promise<number | null>((resolve) => service.once('exit', (c) => resolve(c)));
      expect(code).toBe(1);
      expect(output()).toMatch(/spawnpoint projects: could not start: EventStoreDB at EVENTSTORE_URL \(esdb:\/\/127\.0\.0\.1:1\?tls=false\) is unreachable/);
    } finally {
      await other.drop();
    }
  });

  it('waits for the services without touching the schema or the event store, then serves', async () => {
    log.splice(0);
    const port = await freePort();
    const env = await baseEnv(port, db.url);
    const gateway = launch('gateway', { ...env, EVENTSTORE_URL: 'esdb://127.0.0.1:1?tls=false' });

    await eventually(async () => output(), (o) => /gateway: waiting for the services' migrations/.test(o), 20_000, 'the gateway waiting for the schema');
    await new Promise((r) => setTimeout(r, 1500));
    expect(gateway.exitCode).toBeNull();
    expect(output()).not.toMatch(/EVENTSTORE_URL|listening/);
    // No migrations: not one table, neither the event store's nor the read models'.
    expect(await tables()).toEqual([]);

    // The services migrate (and keep their events in PostgreSQL: EVENTSTORE_URL is the gateway's only).
    for (const app of SERVICES) {
      healthPorts[app] = await freePort();
      serviceProcs[app] = launch(app, { ...env, PORT: String(await freePort()), HEALTH_PORT: String(healthPorts[app]) });
    }
    await eventually(async () => output(), (o) => (o.match(/service ready/g) ?? []).length === SERVICES.length, 60_000, 'services ready');
    await eventually(async () => output(), (o) => /gateway listening/.test(o), 20_000, 'the gateway listening');
    expect(await tables()).toEqual(expect.arrayContaining(['events', 'idempotency_keys', 'parked_events']));

    const api = `http://127.0.0.1:${port}/api`;
    gatewayApi = api;
    const health = await eventually(async () => fetch(`${api}/health`), (r) => r.status === 200, 20_000, 'health 200');
    const body = (await health.json()) as { status: string; checks: Record<string, { ok: boolean }>; projections: { name: string }[] };
    expect(body.status).toBe('ok');
    expect(Object.entries(body.checks).filter(([, c]) => !c.ok)).toEqual([]);
    expect(Object.keys(body.checks)).toEqual(expect.arrayContaining(['database', 'bus', 'eventStore', 'runtime', 'services']));
    // Each service reported its own read models over the bus.
    expect(body.projections.map((p) => p.name)).toEqual(expect.arrayContaining(['projects', 'builds', 'lobbies']));

    // Edge state in the services' database: an Idempotency-Key replays the first answer.
    const create = () => fetch(`${api}/admin/projects`, {
      method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', 'idempotency-key': 'gateway-bus-only' },
      body: JSON.stringify({ name: 'edge' }),
    });
    const first = await create();
    const again = await create();
    expect([first.status, again.status]).toEqual([201, 201]);
    expect((await again.json()).project_id).toBe((await first.json()).project_id);
    expect(output()).not.toMatch(/EVENTSTORE_URL/);
  });

  it('probes each process on its own: a service on HEALTH_PORT, a gateway ready while a service hangs', async () => {
    expect(gatewayApi).not.toBe('');
    for (const app of SERVICES) {
      const r = await fetch(`http://127.0.0.1:${healthPorts[app]}/readyz`);
      expect([app, r.status, await r.json()]).toEqual([app, 200, {
        status: 'ok', service: app, checks: { bus: { ok: true }, eventStore: { ok: true }, database: { ok: true } },
      }]);
      expect((await fetch(`http://127.0.0.1:${healthPorts[app]}/livez`)).status).toBe(200);
    }
    expect(await (await fetch(`${gatewayApi}/health/live`)).json()).toEqual({ status: 'ok' });
    // The servers service stops answering (SIGSTOP): the full report says so, this gateway stays ready.
    serviceProcs.servers.kill('SIGSTOP');
    try {
      const full = await fetch(`${gatewayApi}/health`);
      expect(full.status).toBe(503);
      const ready = await fetch(`${gatewayApi}/health/ready`);
      expect([ready.status, await ready.json()]).toEqual([200, { status: 'ok', checks: { bus: { ok: true }, database: { ok: true } } }]);
    } finally {
      serviceProcs.servers.kill('SIGCONT');
    }
  });
});
