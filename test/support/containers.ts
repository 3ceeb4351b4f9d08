// The platform as the Helm chart configures it, run as containers of the built image (podman + runc):
// the chart is rendered with values that point at this machine's NATS and PostgreSQL, and each
// Deployment's replicas start with that Deployment's args, env (Secrets resolved from the render),
// security context (non-root, read-only root, no capabilities) and emptyDir volumes (tmpfs). On one host
// network every pod's ports would collide, so each container gets its own free ports for PORT,
// LEGACY_PORT and HEALTH_PORT; the probes the chart renders are then asked on those ports.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadAll } from 'js-yaml';
import { createTestDatabase, TestDatabase } from './databases';
import { NATS_URL } from './nats';
import { freePort, Platform, raiseLimits } from './processes';

const run = promisify(execFile);
const ROOT = path.join(__dirname, '..', '..');
const HELM = path.join(ROOT, 'node_modules/.bin/helm');
const CHART = path.join(ROOT, 'helm/spawnpoint');
export const TEST_IMAGE = process.env.SPAWNPOINT_TEST_IMAGE ?? 'localhost/spawnpoint:test';

interface K8sObject { kind: string; metadata: { name: string; annotations?: Record<string, string> }; [key: string]: any }
interface Probe { httpGet: { path: string; port: string | number } }
export interface RenderedApp {
  app: string;
  replicas: number;
  args: string[];
  env: Record<string, string>;
  ports: Record<string, number>;
  readiness: Probe;
  liveness: Probe;
  readOnlyRoot: boolean;
  dropAll: boolean;
  noNewPrivileges: boolean;
  user: string | null;
  mounts: string[];
}

export function podmanAvailable(): boolean {
  try {
    execFileSync('podman', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Builds the image (cached layers make a rebuild of the same sources quick) on the Debian-made base. */
export function buildImage(tag = TEST_IMAGE): { tag: string; sizeBytes: number } {
  const out = execFileSync('bash', [path.join(ROOT, 'deploy/image/build.sh'), '--tag', tag, '--local-base'], {
    cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024,
  }).trim().split('\n').pop()!;
  const [built, size] = out.split(' ');
  return { tag: built, sizeBytes: Number(size) };
}

export function renderChart(values: object): K8sObject[] {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sp-chart-'));
  try {
    const file = path.join(dir, 'values.json');
    writeFileSync(file, JSON.stringify(values));
    const text = execFileSync(HELM, ['template', 'sp', CHART, '--namespace', 'spawnpoint', '--values', file], {
      encoding: 'utf8', env: { ...process.env, HELM_CACHE_HOME: dir, HELM_CONFIG_HOME: dir, HELM_DATA_HOME: dir },
    });
    return (loadAll(text) as Array<K8sObject | null>).filter((o): o is K8sObject => o !== null);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function secretValue(objects: K8sObject[], name: string, key: string): string {
  const secret = objects.find((o) => o.kind === 'Secret' && o.metadata.name === name);
  if (!secret) throw new Error(`the chart renders no Secret ${name}`);
  if (secret.stringData?.[key] !== undefined) return String(secret.stringData[key]);
  if (secret.data?.[key] !== undefined) return Buffer.from(String(secret.data[key]), 'base64').toString('utf8');
  throw new Error(`Secret ${name} has no key ${key}`);
}

/** Each Deployment as what a container needs: its args, env with Secrets resolved, ports, probes and security. */
export function deploymentsOf(objects: K8sObject[]): RenderedApp[] {
  return objects.filter((o) => o.kind === 'Deployment').map((d) => {
    const pod = d.spec.template.spec;
    const c = pod.containers[0];
    const env: Record<string, string> = {};
    for (const e of c.env ?? []) {
      if (e.value !== undefined) env[e.name] = String(e.value);
      else if (e.valueFrom?.secretKeyRef) env[e.name] = secretValue(objects, e.valueFrom.secretKeyRef.name, e.valueFrom.secretKeyRef.key);
      else if (e.valueFrom?.fieldRef) env[e.name] = ({ 'metadata.name': d.metadata.name, 'metadata.namespace': 'spawnpoint' } as Record<string, string>)[e.valueFrom.fieldRef.fieldPath] ?? '127.0.0.1';
      else throw new Error(`${d.metadata.name}: env ${e.name} has no value the test can resolve`);
    }
    for (const from of c.envFrom ?? []) throw new Error(`${d.metadata.name}: envFrom ${JSON.stringify(from)} is not resolved by this test`);
    const volumes = new Map<string, any>((pod.volumes ?? []).map((v: any) => [v.name, v]));
    const mounts = (c.volumeMounts ?? []).map((m: any) => {
      if (!volumes.get(m.name)?.emptyDir) throw new Error(`${d.metadata.name}: volume ${m.name} is not an emptyDir (a cluster would need storage for it)`);
      return m.mountPath as string;
    });
    const sc = { ...(pod.securityContext ?? {}), ...(c.securityContext ?? {}) };
    return {
      app: c.args?.[0] ?? d.metadata.name,
      replicas: d.spec.replicas ?? 1,
      args: c.args ?? [],
      env,
      ports: Object.fromEntries((c.ports ?? []).map((p: any) => [p.name, p.containerPort])),
      readiness: c.readinessProbe,
      liveness: c.livenessProbe,
      readOnlyRoot: sc.readOnlyRootFilesystem === true,
      dropAll: (sc.capabilities?.drop ?? []).includes('ALL'),
      noNewPrivileges: sc.allowPrivilegeEscalation === false,
      user: sc.runAsUser !== undefined ? `${sc.runAsUser}:${sc.runAsGroup ?? sc.runAsUser}` : null,
      mounts,
    };
  });
}

function hardLimit(flag: '-Hn' | '-Hu', fallback: number): number {
  const raw = execFileSync('bash', ['-c', `ulimit ${flag}`], { encoding: 'utf8' }).trim();
  return raw === 'unlimited' ? fallback : Number(raw);
}

export interface Container {
  name: string;
  app: string;
  /** The env var → host port each of its named ports got. */
  ports: Record<string, number>;
  probeUrl(probe: Probe): string;
}

/**
 * The start of every `podman run` here: runc, the host network, and explicit ulimits (runc refuses this
 * machine's hard nproc limit, so none is inherited), then `options`.
 */
export function podmanRun(options: string[], limits = { nofile: 1024, nproc: 1024 }): string[] {
  return ['run', '--runtime', 'runc', '--network', 'host',
    '--ulimit', `nofile=${limits.nofile}:${limits.nofile}`, '--ulimit', `nproc=${limits.nproc}:${limits.nproc}`, ...options];
}

/** podman run of one replica: the image's entrypoint with the Deployment's args, on the host network. */
export async function runReplica(image: string, spec: RenderedApp, name: string, env: Record<string, string>): Promise<void> {
  const limits = { nofile: Math.min(hardLimit('-Hn', 65536), 65536), nproc: Math.min(hardLimit('-Hu', 4096), 4096) };
  const args = podmanRun(['--detach', '--name', name, '--stop-timeout', '20'], limits);
  if (spec.readOnlyRoot) args.push('--read-only');
  if (spec.dropAll) args.push('--cap-drop', 'ALL');
  if (spec.noNewPrivileges) args.push('--security-opt', 'no-new-privileges');
  if (spec.user) args.push('--user', spec.user);
  for (const mount of spec.mounts) args.push('--tmpfs', `${mount}:rw,mode=1777,exec`);
  for (const [k, v] of Object.entries(env)) args.push('--env', `${k}=${v}`);
  args.push(image, ...spec.args);
  await run('podman', args);
}

/** Whether the container is still running (a crashed app is reported at once, not after a probe timeout). */
export async function isRunning(name: string): Promise<boolean> {
  const { stdout } = await run('podman', ['container', 'inspect', '--format', '{{.State.Running}}', name]).catch(() => ({ stdout: 'false' }));
  return stdout.trim() === 'true';
}

/**
 * A free port not handed out before in this run: a container binds its ports only once its app starts,
 * so until then the OS would offer the same free port again.
 */
export async function unclaimedPort(claimed: Set<number>): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (!claimed.has(port)) {
      claimed.add(port);
      return port;
    }
  }
}

export async function removeContainers(names: string[]): Promise<void> {
  if (names.length) await run('podman', ['rm', '--force', '--time', '10', ...names]).catch(() => undefined);
}

export async function containerLogs(name: string): Promise<string> {
  const { stdout, stderr } = await run('podman', ['logs', name], { maxBuffer: 16 * 1024 * 1024 }).catch(() => ({ stdout: '', stderr: '' }));
  return `${stdout}${stderr}`;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number, logs: () => Promise<string>, container?: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    if (container && !(await isRunning(container))) throw new Error(`${what}: the container exited\n${await logs()}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${what}: not within ${timeoutMs} ms\n${await logs()}`);
}

export interface HelmTestPod { name: string; command: string[]; args: string[]; env: Record<string, string> }

export interface ChartPlatform extends Platform {
  containers: Container[];
  apps: RenderedApp[];
  /** The chart's `helm test` pods (hook: test), to run against the containers. */
  helmTests: HelmTestPod[];
}

function helmTestsOf(objects: K8sObject[]): HelmTestPod[] {
  return objects.filter((o) => o.kind === 'Pod' && o.metadata.annotations?.['helm.sh/hook'] === 'test').map((pod) => {
    const c = pod.spec.containers[0];
    return { name: pod.metadata.name, command: c.command ?? [], args: c.args ?? [], env: Object.fromEntries((c.env ?? []).map((e: any) => [e.name, String(e.value)])) };
  });
}

/** The chart's Deployments as containers of `image` against this machine's NATS and a new database. */
export async function startFromChart(image: string, extraValues: Record<string, unknown> = {}): Promise<ChartPlatform> {
  const db: TestDatabase = await createTestDatabase('chart');
  const gatewayPorts: number[] = [];
  const names: string[] = [];
  const containers: Container[] = [];
  const logs = async () => (await Promise.all(names.map(async (n) => `--- ${n}\n${(await containerLogs(n)).slice(-3000)}`))).join('\n');
  try {
    const claimed = new Set<number>();
    const firstPort = await unclaimedPort(claimed);
    const values = {
      runtime: 'process',
      natsUrl: NATS_URL,
      database: { url: db.url },
      publicUrl: `http://127.0.0.1:${firstPort}`,
      gameServers: { portRange: '27950-27999', tcpHost: '127.0.0.1', udpHost: '127.0.0.1' },
      // Pods have a network each, these containers share the host's: two process-runtime servers replicas
      // would hand out one port range on it (the chart runs two by default).
      apps: { servers: { replicas: 1 } },
      ...extraValues,
    };
    const objects = renderChart(values);
    const apps = deploymentsOf(objects);
    const prefix = `sp-${process.pid}-${Date.now().toString(36)}`;
    // Services first: they migrate the schema the gateway waits for.
    const ordered = [...apps.filter((a) => a.app !== 'gateway'), ...apps.filter((a) => a.app === 'gateway')];
    for (const spec of ordered) {
      for (let i = 0; i < spec.replicas; i++) {
        const name = `${prefix}-${spec.app}-${i}`;
        const env = { ...spec.env };
        const hostPorts: Record<string, number> = {};
        const byEnv: Record<string, string> = { http: 'PORT', legacy: 'LEGACY_PORT', health: 'HEALTH_PORT', metrics: 'HEALTH_PORT' };
        for (const [portName] of Object.entries(spec.ports)) {
          const variable = byEnv[portName];
          if (!variable) throw new Error(`${spec.app}: port ${portName} has no env var the test knows`);
          hostPorts[portName] = hostPorts[portName] ?? (spec.app === 'gateway' && portName === 'http' && gatewayPorts.length === 0 ? firstPort : await unclaimedPort(claimed));
          if (portName === 'metrics' && hostPorts.health) hostPorts.metrics = hostPorts.health;
          env[variable] = String(hostPorts[portName]);
        }
        if (spec.app === 'gateway') gatewayPorts.push(hostPorts.http);
        await runReplica(image, spec, name, env);
        names.push(name);
        containers.push({
          name, app: spec.app, ports: hostPorts,
          probeUrl: (probe) => `http://127.0.0.1:${typeof probe.httpGet.port === 'number' ? probe.httpGet.port : hostPorts[probe.httpGet.port]}${probe.httpGet.path}`,
        });
      }
    }
    // Ready as Kubernetes would see it: every replica's rendered readiness probe answers 200.
    for (const c of containers) {
      const spec = apps.find((a) => a.app === c.app)!;
      await until(`${c.name} ready (${c.probeUrl(spec.readiness)})`, async () => (await fetch(c.probeUrl(spec.readiness))).status === 200, 120_000, logs, c.name);
    }
    const baseUrl = `http://127.0.0.1:${firstPort}/api`;
    const gateway = apps.find((a) => a.app === 'gateway')!;
    const adminToken = gateway.env.SPAWNPOINT_ADMIN_TOKEN;
    const res = await fetch(`${baseUrl}/admin/projects`, {
      method: 'POST', headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'chart', plan: 'pro' }),
    });
    if (res.status !== 201) throw new Error(`admin create project: ${res.status} ${await res.text()}\n${await logs()}`);
    const project = (await res.json()) as { project_id: string; server_key: string; client_key: string };
    await raiseLimits(baseUrl, project.project_id, adminToken);
    const stop = async () => {
      await removeContainers(names);
      await db.drop();
    };
    let output = '';
    return {
      baseUrl, gatewayUrls: gatewayPorts.map((p) => `http://127.0.0.1:${p}/api`), legacyUrl: `http://127.0.0.1:${containers.find((c) => c.app === 'gateway')!.ports.legacy}`,
      projectId: project.project_id, serverKey: project.server_key, clientKey: project.client_key, dataDir: '', databaseUrl: db.url, adminToken,
      output: () => output, containers, apps, helmTests: helmTestsOf(objects),
      async kill(app, signal) {
        const c = containers.find((x) => x.app === app)!;
        await run('podman', ['kill', '--signal', signal, c.name]);
        output = await logs();
        return { code: null, signal };
      },
      async relaunch() { throw new Error('containers: not supported'); },
      async stop() {
        output = await logs();
        await stop();
      },
    };
  } catch (err) {
    await removeContainers(names);
    await db.drop().catch(() => undefined);
    throw err;
  }
}

/** `${NAME:-default}` as compose reads it, with nothing set: the file's own defaults. */
function interpolate(text: string): string {
  return text.replace(/\$\{([A-Z0-9_]+)(?::-([^}]*))?\}/g, (_, _name: string, fallback?: string) => fallback ?? '');
}

export interface ComposeApp extends RenderedApp {
  service: string;
  healthcheck: string[];
  published: string[];
}

/** The services of deploy/compose.yaml that run the Spawnpoint image, as containers need them. */
export function composeApps(file = path.join(ROOT, 'deploy/compose.yaml')): ComposeApp[] {
  const doc = loadAll(interpolate(readFileSync(file, 'utf8')))[0] as { services: Record<string, any> };
  return Object.entries(doc.services).filter(([, s]) => String(s.image ?? '').includes('spawnpoint')).map(([service, s]) => ({
    service,
    app: s.command[0],
    replicas: 1,
    args: s.command,
    env: Object.fromEntries(Object.entries(s.environment ?? {}).map(([k, v]) => [k, String(v)])),
    ports: {},
    readiness: { httpGet: { path: '', port: 0 } },
    liveness: { httpGet: { path: '', port: 0 } },
    readOnlyRoot: s.read_only === true,
    dropAll: (s.cap_drop ?? []).includes('ALL'),
    noNewPrivileges: (s.security_opt ?? []).includes('no-new-privileges:true'),
    user: null,
    mounts: (s.tmpfs ?? []).map((t: string) => t.split(':')[0]),
    healthcheck: s.healthcheck.test,
    published: s.ports ?? [],
  }));
}
