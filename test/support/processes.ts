// Starts the platform the way a user does — built entry points as child processes — for e2e suites.
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, TestDatabase } from './databases';
import { jsonLinesSoFar } from './logs';
import { NATS_URL } from './nats';

const ROOT = path.join(__dirname, '..', '..');
export const ADMIN_TOKEN = 'e2e-admin-token';

export interface Platform {
  baseUrl: string;
  /** The legacy lobby API's second listener (LEGACY_PORT). */
  legacyUrl: string;
  /** Distributed mode: every gateway replica's API base (the first is baseUrl). */
  gatewayUrls?: string[];
  projectId: string;
  serverKey: string;
  clientKey: string;
  dataDir: string;
  /** The admin API's token, when not ADMIN_TOKEN (the chart generates one). */
  adminToken?: string;
  /** Distributed mode: the platform's database (event store and read models). */
  databaseUrl?: string;
  output: () => string;
  /** One app's stdout so far (standalone: `standalone`): its JSON log lines (test/support/logs.ts). */
  stdout?: (app: string) => string;
  stop(): Promise<void>;
  /** Distributed mode: end one service app's process with `signal` (kill -9 by default) and start it again. */
  restartApp?(app: string, signal?: NodeJS.Signals): Promise<void>;
  /** Send `signal` to one app's process (standalone: `standalone`) and wait for it to end. */
  kill(app: string, signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Distributed: send `signal` to every replica of one app still running, and wait for each to end. */
  killAll?(app: string, signal: NodeJS.Signals): Promise<void>;
  /** Distributed: send `signal` to the `index`-th replica of one app (0: the first started) and wait for it to end. */
  killReplica?(app: string, index: number, signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Distributed: how many replicas of each app were started (gateway replicas are `gateway`, `gateway-2`, …). */
  replicas?: Record<string, number>;
  /** Distributed: start that app again with the same environment and wait until it is ready. */
  relaunch(app: string): Promise<void>;
  /** Distributed: the apps (one entry per replica) whose process has exited, with how. */
  exited?(): string[];
  /** Distributed with `opsPorts`: each app's HEALTH_PORT (probes and /metrics), by app name. */
  opsPorts?: Record<string, number>;
}

function killChild(child: ChildProcess, signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve({ code: child.exitCode, signal: child.signalCode });
    child.once('exit', (code, sig) => resolve({ code, signal: sig }));
    child.kill(signal);
  });
}

/**
 * A port for a platform to listen on, from 10000-16999: below the kernel's ephemeral range (32768+), where
 * an outgoing connection (a PostgreSQL or NATS client of a test running beside this one) can take a port
 * between our check and the platform's bind (CI saw EADDRINUSE on a port picked with listen(0)), and below
 * the game-port ranges the suites give their platforms (17000+). Each jest worker draws from its own
 * thousand, and a port is handed out once per process.
 */
const handedOut = new Set<number>();
export async function freePort(): Promise<number> {
  const worker = Number(process.env.JEST_WORKER_ID ?? '1');
  const base = 10_000 + ((worker - 1) % 7) * 1000;
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = base + Math.floor(Math.random() * 1000);
    // 10080 is on fetch's list of bad ports: a platform there cannot be reached by the tests' fetch.
    if (handedOut.has(port) || port === 10080) continue;
    if (await bindable(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`freePort: no free port in ${base}-${base + 999}`);
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** The logs of the platforms started by this test file, newest last: e2e-environment.js prints their tails when a test fails. */
const platformLogs = new Set<string[]>();
(globalThis as { __spawnpointProcessLogs?: () => string }).__spawnpointProcessLogs = () =>
  [...platformLogs].slice(-2).map((log) => log.join('').slice(-12_000)).join('\n---- next platform ----\n');

/** `stdouts`: each app's stdout as it came (no prefixes), for reading its log lines whole. */
function launch(app: string, env: NodeJS.ProcessEnv, log: string[], stdouts: Map<string, string>): ChildProcess {
  platformLogs.add(log);
  const child = spawn(process.execPath, [path.join(ROOT, 'apps', app, 'dist', 'main.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d) => {
    log.push(`[${app}] ${d}`);
    stdouts.set(app, (stdouts.get(app) ?? '') + String(d));
  });
  child.stderr!.on('data', (d) => log.push(`[${app}!] ${d}`));
  return child;
}

async function stopAll(children: ChildProcess[]): Promise<void> {
  await Promise.all(children.map((c) => new Promise<void>((resolve) => {
    if (c.exitCode !== null || c.signalCode !== null) return resolve();
    const t = setTimeout(() => c.kill('SIGKILL'), 10_000);
    c.once('exit', () => { clearTimeout(t); resolve(); });
    c.kill('SIGTERM');
  })));
}

async function waitFor(fn: () => Promise<boolean>, what: string, log: string[], timeoutMs = 60_000, children: ChildProcess[] = []): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const dead = children.find((c) => c.exitCode !== null || c.signalCode !== null);
    if (dead) throw new Error(`${what}: a process exited early (${dead.exitCode ?? dead.signalCode})\n${log.join('')}`);
    if (await fn().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not happen within ${timeoutMs} ms\n${log.join('')}`);
}

/** Test traffic is bursty: the suites' main project gets high limits (the rate-limit test makes its own project). */
export async function raiseLimits(baseUrl: string, projectId: string, adminToken = ADMIN_TOKEN): Promise<void> {
  const res = await fetch(`${baseUrl}/admin/projects/${projectId}`, {
    method: 'PATCH', headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ rate_limits: { read_per_second: 100_000, write_per_second: 100_000, player_per_second: 100_000 } }),
  });
  if (res.status !== 200) throw new Error(`raising limits: ${res.status} ${await res.text()}`);
}

function baseEnv(dataDir: string, port: number, portRange: string, legacyPort: number): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), LEGACY_PORT: String(legacyPort), HOST: '127.0.0.1', SPAWNPOINT_DATA_DIR: dataDir,
    SPAWNPOINT_ADMIN_TOKEN: ADMIN_TOKEN, SPAWNPOINT_PORT_RANGE: portRange, SPAWNPOINT_PUBLIC_URL: `http://127.0.0.1:${port}`,
    // Metrics on (the default) on any free port: 9464 would be taken by the first of many processes here.
    METRICS_PORT: '0',
  };
}

export interface StandaloneOptions {
  portRange?: string;
  /** Reuse this data dir (and keep it on stop). */
  dataDir?: string;
  env?: NodeJS.ProcessEnv;
  /** The API port (a restart on the same address); a free one by default. */
  port?: number;
}

/** `npm start`'s process: embedded PostgreSQL, in-process bus, process runtime. */
export async function startStandalone(options: StandaloneOptions = {}): Promise<Platform> {
  const keep = options.dataDir !== undefined;
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'sp-e2e-standalone-'));
  const port = options.port ?? (await freePort());
  const legacyPort = await freePort();
  const log: string[] = [];
  const stdouts = new Map<string, string>();
  const child = launch('standalone', { ...baseEnv(dataDir, port, options.portRange ?? '17000-17499', legacyPort), ...options.env }, log, stdouts);
  // Started: the line with the default project's keys (apps/standalone/src/main.ts).
  const announced = () => jsonLinesSoFar(stdouts.get('standalone') ?? '').find((l) => typeof l.client_key === 'string');
  await waitFor(async () => announced() !== undefined, 'standalone start', log, 90_000, [child]).catch(async (err) => {
    await stopAll([child]);
    if (!keep) rmSync(dataDir, { recursive: true, force: true });
    throw err;
  });
  const keys = announced()! as unknown as { project_id: string; server_key: string; client_key: string };
  const projectId = keys.project_id;
  await raiseLimits(`http://127.0.0.1:${port}/api`, projectId);
  return {
    baseUrl: `http://127.0.0.1:${port}/api`,
    legacyUrl: `http://127.0.0.1:${legacyPort}`,
    projectId,
    serverKey: keys.server_key,
    clientKey: keys.client_key,
    dataDir,
    output: () => log.join(''),
    stdout: (app) => stdouts.get(app) ?? '',
    async stop() {
      await stopAll([child]);
      if (!keep) rmSync(dataDir, { recursive: true, force: true });
    },
    kill: (_app, signal) => killChild(child, signal),
    async relaunch() {
      throw new Error('standalone: start it again with startStandalone({ dataDir })');
    },
  };
}

export interface DistributedOptions {
  gateways?: number;
  extraServices?: string[];
  /** Each app its own SPAWNPOINT_DATA_DIR, `<dataDir>/<app>` (as pods without a shared volume): nothing on disk is shared. */
  ownDataDirs?: boolean;
  /** Each app its own HEALTH_PORT (probes and /metrics), reported as `opsPorts`. */
  opsPorts?: boolean;
  /** Use this database (a private PostgreSQL the test may stop) instead of a fresh one on the machine's server. */
  databaseUrl?: string;
}

/** Each app its own process over real NATS and PostgreSQL; a project made through the admin API. */
export async function startDistributed(portRange = '17500-17999', extraEnv: NodeJS.ProcessEnv = {}, options: DistributedOptions = {}): Promise<Platform> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sp-e2e-distributed-'));
  const db: TestDatabase = options.databaseUrl
    ? { url: options.databaseUrl, name: 'own', drop: async () => undefined }
    : await createTestDatabase('e2e');
  const port = await freePort();
  const legacyPort = await freePort();
  const log: string[] = [];
  const stdouts = new Map<string, string>();
  // Replicas of every app would pass PostgreSQL's default max_connections (100) with the default pools
  // (docs/operations.md, SPAWNPOINT_DB_POOL_SIZE), as on a managed database: smaller pools, as an operator would.
  const pools = options.extraServices?.length ? { SPAWNPOINT_DB_POOL_SIZE: '4' } : {};
  const shared = { ...baseEnv(dataDir, port, portRange, legacyPort), DATABASE_URL: db.url, NATS_URL, ...pools, ...extraEnv };
  const opsPorts: Record<string, number> = {};
  if (options.opsPorts) {
    for (const app of ['projects', 'builds', 'servers', 'lobbies', 'matchmaking', 'backfill', 'gateway']) opsPorts[app] = await freePort();
  }
  // A second replica of an app has its own data dir (`<dataDir>/<app>-2`): a servers replica's game machines
  // are its own, as on another node.
  const env = (app: string, replica = 0): NodeJS.ProcessEnv => ({
    ...(replica > 0 ? { ...shared, SPAWNPOINT_DATA_DIR: path.join(dataDir, `${app}-${replica + 1}`) }
      : options.ownDataDirs ? { ...shared, SPAWNPOINT_DATA_DIR: path.join(dataDir, app) } : shared),
    ...(opsPorts[app] !== undefined && replica === 0 ? { HEALTH_PORT: String(opsPorts[app]) } : {}),
  });
  // Services first (they create the schema), then the gateway.
  // extraServices: more replicas of a service (they share its bus subjects as a queue group).
  // names[i]: the app of children[i] (for kill and relaunch).
  const names = ['projects', 'builds', 'servers', 'lobbies', 'matchmaking', 'backfill', ...(options.extraServices ?? [])];
  const children = names.map((app, i) => launch(app, env(app, replicaOf(names, i)), log, stdouts));
  try {
    const platform = await bootDistributed(children, names, env, log, stdouts, port, legacyPort, dataDir, db, options);
    return options.opsPorts ? { ...platform, opsPorts } : platform;
  } catch (err) {
    // A start that failed leaves nothing behind: its processes would hold connections the next suites need.
    await stopAll(children);
    await db.drop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

/** Which replica of its app `names[i]` is: 0 for the first. */
function replicaOf(names: string[], i: number): number {
  return names.slice(0, i).filter((n) => n === names[i]).length;
}

async function bootDistributed(
  children: ChildProcess[], names: string[], env: (app: string, replica?: number) => NodeJS.ProcessEnv, log: string[], stdouts: Map<string, string>, port: number, legacyPort: number, dataDir: string, db: TestDatabase,
  options: { gateways?: number },
): Promise<Platform> {
  const services = children.length;
  await waitFor(async () => (log.join('').match(/service ready/g) ?? []).length === services, 'services ready', log, 60_000, children);
  children.push(launch('gateway', env('gateway'), log, stdouts));
  names.push('gateway');
  const baseUrl = `http://127.0.0.1:${port}/api`;
  await waitFor(async () => (await fetch(`${baseUrl}/health`)).status === 200, 'gateway healthy', log, 60_000, children);
  // More gateway replicas: any of them serves any request (and any player's event stream).
  const gatewayUrls = [baseUrl];
  // A gateway replica's own ports, for its relaunch on the same address.
  const extraGatewayEnvs = new Map<string, NodeJS.ProcessEnv>();
  for (let i = 1; i < (options.gateways ?? 1); i++) {
    const extraPort = await freePort();
    const gatewayEnv = { ...env(`gateway-${i + 1}`), PORT: String(extraPort), LEGACY_PORT: String(await freePort()) };
    extraGatewayEnvs.set(`gateway-${i + 1}`, gatewayEnv);
    children.push(launch('gateway', gatewayEnv, log, stdouts));
    names.push(`gateway-${i + 1}`);
    gatewayUrls.push(`http://127.0.0.1:${extraPort}/api`);
    await waitFor(async () => (await fetch(`${gatewayUrls[i]}/health`)).status === 200, `gateway ${i + 1} healthy`, log, 60_000, children);
  }
  const res = await fetch(`${baseUrl}/admin/projects`, {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'e2e', plan: 'pro' }),
  });
  if (res.status !== 201) throw new Error(`admin create project: ${res.status} ${await res.text()}\n${log.join('')}`);
  const project = (await res.json()) as { project_id: string; server_key: string; client_key: string };
  await raiseLimits(baseUrl, project.project_id);
  async function relaunch(app: string): Promise<void> {
    // A service says it is ready; the gateway, that it listens.
    const ready = new RegExp(`spawnpoint ${app.replace(/-\d+$/, '')} (service ready|listening)`, 'g');
    const before = (log.join('').match(ready) ?? []).length;
    // With replicas of the app, the one that has died is started again (with its own environment).
    const dead = names.findIndex((n, i) => n === app && (children[i].exitCode !== null || children[i].signalCode !== null));
    const index = dead >= 0 ? dead : names.indexOf(app);
    const child = launch(app.replace(/-\d+$/, ''), extraGatewayEnvs.get(app) ?? env(app, replicaOf(names, index)), log, stdouts);
    children[index] = child;
    await waitFor(async () => (log.join('').match(ready) ?? []).length > before, `${app} ready again`, log, 60_000, [child]);
  }
  return {
    baseUrl, gatewayUrls, legacyUrl: `http://127.0.0.1:${legacyPort}`, projectId: project.project_id, serverKey: project.server_key, clientKey: project.client_key, dataDir, databaseUrl: db.url, output: () => log.join(''), stdout: (app) => stdouts.get(app) ?? '',
    kill: (app, signal) => killChild(children[names.indexOf(app)], signal),
    killReplica: (app, index, signal) => killChild(children.filter((_, i) => names[i] === app)[index], signal),
    replicas: names.reduce<Record<string, number>>((counts, n) => ({ ...counts, [n]: (counts[n] ?? 0) + 1 }), {}),
    async killAll(app, signal) {
      await Promise.all(children.filter((_, i) => names[i] === app).map((child) => killChild(child, signal)));
    },
    relaunch,
    exited: () => names.flatMap((n, i) => (children[i].exitCode !== null || children[i].signalCode !== null ? [`${n} (${children[i].exitCode ?? children[i].signalCode})`] : [])),
    /** kill -9 (by default) one service app and start it again. */
    async restartApp(app: string, signal: NodeJS.Signals = 'SIGKILL') {
      await killChild(children[names.indexOf(app)], signal);
      await relaunch(app);
    },
    async stop() {
      await stopAll(children);
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
