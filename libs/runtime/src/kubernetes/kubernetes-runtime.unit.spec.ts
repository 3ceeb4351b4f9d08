/** @jest-environment ./libs/runtime/src/kubernetes/testing/native-modules-environment.js */
// The runtime's bookkeeping (pods, watch, resync, stop, timeouts, logs, adoption) driven through the real
// client over HTTP, against FakeApiServer standing in for the API server and the kubelet. The real
// cluster contract runs in kubernetes-runtime.int.spec.ts.
import { rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { EventRecorder } from '../testing/event-recorder';
import { KubernetesRuntime, type KubernetesRuntimeOptions } from './kubernetes-runtime';
import { podFor } from './pod-for';
import { parseKubernetesSettings, type KubernetesRuntimeSettings } from './settings';
import { FakeApiServer } from './testing/fake-api-server';
import { machineSpec, TCP_GAME, UDP_GAME } from './testing/fixtures';

const NS = 'games';
let api: FakeApiServer;
let runtime: KubernetesRuntime;
let events: EventRecorder;
let warnings: string[];
const runtimes: KubernetesRuntime[] = [];
let count = 0;

function settings(overrides: Record<string, unknown> = {}): KubernetesRuntimeSettings {
  return parseKubernetesSettings({
    regions: { 'eu-west': { namespace: NS, tcpHost: 'relay.test', udpHost: '192.0.2.1', portRange: [30000, 30099] } },
    terminationGracePeriodSeconds: 5, startupTimeoutMs: 800, pendingTimeoutMs: 1500, stopTimeoutMs: 500,
    ...overrides,
  });
}

function newRuntime(config = settings(), options: KubernetesRuntimeOptions = {}): KubernetesRuntime {
  const created = new KubernetesRuntime(config, { kubeConfig: api.kubeConfig(), warn: (m) => warnings.push(m), backoffMs: [20, 100], ...options });
  runtimes.push(created);
  return created;
}

/** Allocate ports and start a game; the pod's name and server id. */
async function launch(on = runtime, ports = [UDP_GAME, TCP_GAME]) {
  const serverId = `game-${++count}`;
  const allocated = await on.allocatePorts(serverId, ports);
  await on.start({ ...machineSpec({ serverId, ports: [], build: 'image' }), ports: allocated });
  return { serverId, name: `sp-${serverId}`, ports: allocated };
}

const running = (ready = false) => [{ running: { startedAt: new Date().toISOString() as never } }, ready] as const;

beforeEach(async () => {
  api = await new FakeApiServer().start();
  warnings = [];
  runtime = newRuntime();
  events = new EventRecorder(runtime);
  await runtime.synced(2000);
});

afterEach(async () => {
  events.stop();
  await Promise.all(runtimes.splice(0).map((r) => r.close()));
  await api.close();
});

describe('KubernetesRuntime against a fake API server', () => {
  it('creates the pod podFor builds, with the kubeconfig\'s credentials', async () => {
    const { serverId, name, ports } = await launch();
    const created = api.requests.find((r) => r.method === 'POST')!;
    expect(created.path).toBe(`/api/v1/namespaces/${NS}/pods`);
    expect(created.authorization).toBe('Bearer fake-token');
    expect(created.body.spec).toEqual(podFor({ ...machineSpec({ serverId, ports: [], build: 'image' }), ports }, runtime.settings).spec);
    expect(api.pod(NS, name)!.metadata!.labels!['spawnpoint.dev/server']).toBe(serverId);
    expect(runtime.running()).toEqual([serverId]);
  });

  it('sends every part of a pod through the client\'s serializer: zip build, UDP sidecar, placement, security', async () => {
    await runtime.close(); // only the runtime under test should see the pod
    const full = newRuntime(settings({
      runAsNonRoot: true, priorityClassName: 'games',
      regions: { 'eu-west': {
        namespace: NS, tcpHost: 'relay.test', udpHost: '192.0.2.1', portRange: [30000, 30099],
        nodeSelector: { pool: 'games' }, tolerations: [{ key: 'games', operator: 'Exists', effect: 'NoSchedule' }], imagePullSecrets: ['pull'],
      } },
    }));
    await full.synced(2000);
    const ports = await full.allocatePorts('zipped', [UDP_GAME, { ...UDP_GAME, name: 'voice', internalPort: 80 }]);
    const spec = { ...machineSpec({ serverId: 'zipped', build: 'zip', ports: [] }), ports };
    await full.start(spec);
    const sent = api.requests.find((r) => r.method === 'POST')!.body;
    const expected = podFor(spec, full.settings);
    expect(sent.spec).toEqual(expected.spec);
    expect(sent.metadata).toEqual(expected.metadata);
    expect(sent.spec.initContainers.map((c: { name: string; restartPolicy?: string }) => `${c.name}:${c.restartPolicy ?? '-'}`)).toEqual(['fetch:-', 'ports-probe:Always']);
  });

  it('allocates host ports from the region, with the region\'s hosts; the game binds its own port', async () => {
    const ports = await runtime.allocatePorts('s1', [UDP_GAME, TCP_GAME]);
    expect(ports).toEqual([
      { ...UDP_GAME, bindPort: 7777, externalPort: 30000, host: '192.0.2.1' },
      { ...TCP_GAME, bindPort: 7778, externalPort: 30001, host: 'relay.test' },
    ]);
    expect((await runtime.allocatePorts('s2', [TCP_GAME]))[0].externalPort).toBe(30002);
  });

  it('reports ports_bound once the pod is ready, once, however readiness flaps', async () => {
    const { serverId, name } = await launch();
    api.setGame(NS, name, ...running(false));
    await sleep(100);
    expect(events.count(serverId, 'ports_bound')).toBe(0);
    api.setGame(NS, name, ...running(true));
    await events.portsBound(serverId, 2000);
    api.setGame(NS, name, ...running(false));
    api.setGame(NS, name, ...running(true));
    await sleep(100);
    expect(events.count(serverId, 'ports_bound')).toBe(1);
  });

  it('streams the game\'s logs with levels, and reports its own exit after its last lines', async () => {
    const { serverId, name } = await launch();
    api.setGame(NS, name, ...running(true));
    api.appendLog(NS, name, 'INFO hello');
    api.appendLog(NS, name, 'WARN careful');
    expect(await events.log(serverId, /^WARN careful$/, 2000)).toMatchObject({ level: 'warn', stream: 'stdout' });
    api.appendLog(NS, name, 'ERROR last words');
    api.setGame(NS, name, { terminated: { exitCode: 3, reason: 'Error' } });
    expect(await events.exited(serverId, 5000)).toMatchObject({ reason: 'PROCESS_EXITED', exitCode: 3, signal: null });
    const types = events.events.filter((e) => (e.type === 'log' ? e.entry.serverId : e.serverId) === serverId)
      .map((e) => (e.type === 'log' ? e.entry.message : e.type));
    expect(types).toEqual(['ports_bound', 'INFO hello', 'WARN careful', 'ERROR last words', 'exited']);
    expect(runtime.running()).toEqual([]);
    // The finished pod is cleaned up.
    await waitFor(() => api.pod(NS, name) === undefined);
    expect(api.requests.some((r) => r.method === 'DELETE' && r.path.endsWith(`/pods/${name}`))).toBe(true);
    expect(events.count(serverId, 'exited')).toBe(1);
  });

  it('asks for stdout and stderr separately with logStreams: split', async () => {
    await runtime.close(); // it would adopt the pod and follow its log too
    const split = newRuntime(settings({ logStreams: 'split' }));
    const splitEvents = new EventRecorder(split);
    await split.synced(2000);
    const { serverId, name } = await launch(split);
    api.setGame(NS, name, ...running(true));
    await waitFor(() => api.requests.filter((r) => r.path.endsWith(`/pods/${name}/log`)).length >= 2);
    const streams = api.requests.filter((r) => r.path.endsWith(`/pods/${name}/log`)).map((r) => r.query.get('stream')).sort();
    expect(streams).toEqual(['Stderr', 'Stdout']);
    api.appendLog(NS, name, 'plain line');
    // The fake serves both streams the same lines; each is labelled by the stream it was asked for.
    await splitEvents.log(serverId, /^plain line$/, 2000);
    await waitFor(() => splitEvents.events.filter((e) => e.type === 'log' && e.entry.message === 'plain line').length === 2);
    const levels = splitEvents.events.flatMap((e) => (e.type === 'log' && e.entry.message === 'plain line' ? [`${e.entry.stream}:${e.entry.level}`] : []));
    expect(levels.sort()).toEqual(['stderr:error', 'stdout:info']);
    splitEvents.stop();
  });

  it('stops a game: deletes with the grace period, SHUTDOWN_SIGNAL with the game\'s exit code, resolves once gone; idempotent', async () => {
    const { serverId, name } = await launch();
    api.setGame(NS, name, ...running(true));
    await events.portsBound(serverId, 2000);
    await runtime.stop(serverId, 2500);
    expect(api.pod(NS, name)).toBeUndefined();
    const deleteRequest = api.requests.find((r) => r.method === 'DELETE')!;
    expect(deleteRequest.query.get('gracePeriodSeconds')).toBe('3');
    expect(deleteRequest.body.preconditions.uid).toMatch(/^uid-/);
    expect(await events.exited(serverId, 0)).toMatchObject({ reason: 'SHUTDOWN_SIGNAL', exitCode: 0, signal: null });
    expect(runtime.running()).toEqual([]);
    await runtime.stop(serverId);
    expect(events.count(serverId, 'exited')).toBe(1);
  });

  it('stop while the create call is in flight deletes the pod once it exists', async () => {
    const serverId = 'racing';
    const ports = await runtime.allocatePorts(serverId, [TCP_GAME]);
    const starting = runtime.start({ ...machineSpec({ serverId, ports: [], build: 'image' }), ports });
    const stopping = runtime.stop(serverId, 1000);
    await starting;
    await stopping;
    expect(api.pod(NS, 'sp-racing')).toBeUndefined();
    expect(await events.exited(serverId, 0)).toMatchObject({ reason: 'SHUTDOWN_SIGNAL' });
  });

  it('kills a game that runs but does not bind its ports in time: STARTUP_FAILURE_TIMEOUT', async () => {
    const { serverId, name } = await launch();
    const startedAt = Date.now();
    api.setGame(NS, name, ...running(false));
    const exited = await events.exited(serverId, 5000);
    expect(exited.reason).toBe('STARTUP_FAILURE_TIMEOUT');
    expect(exited.at.getTime() - startedAt).toBeGreaterThanOrEqual(750);
    expect((await events.log(serverId, /not bound within 800 ms/, 0)).message).toContain('7777/udp, 7778/tcp');
    expect(api.requests.find((r) => r.method === 'DELETE')!.query.get('gracePeriodSeconds')).toBe('1');
    await waitFor(() => api.pod(NS, name) === undefined);
  });

  it('gives up on a pod that never gets going, saying why: STARTUP_FAILURE_TIMEOUT', async () => {
    const { serverId, name } = await launch();
    api.update(NS, name, (pod) => {
      pod.status = { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/2 nodes are available: 2 Insufficient cpu.' }] };
    });
    expect((await events.log(serverId, /waiting for a node/, 2000)).level).toBe('warn');
    expect(await events.exited(serverId, 5000)).toMatchObject({ reason: 'STARTUP_FAILURE_TIMEOUT' });
    expect((await events.log(serverId, /did not start within 1500 ms/, 0)).message).toContain('Insufficient cpu');
  });

  it('reports an image that cannot be pulled as START_FAILED and removes the pod', async () => {
    const { serverId, name } = await launch();
    api.update(NS, name, (pod) => {
      pod.status = { phase: 'Pending', containerStatuses: [{ name: 'game', image: 'x', imageID: '', restartCount: 0, ready: false, state: { waiting: { reason: 'ErrImagePull', message: 'not found' } } }] };
    });
    expect(await events.exited(serverId, 2000)).toMatchObject({ reason: 'START_FAILED', exitCode: null });
    await waitFor(() => api.pod(NS, name) === undefined);
  });

  it('resyncs after 410 Gone: a pod that vanished in the gap is reported exited, the others keep being watched', async () => {
    const lost = await launch();
    const kept = await launch();
    api.setGame(NS, lost.name, ...running(true));
    api.setGame(NS, kept.name, ...running(true));
    await events.portsBound(kept.serverId, 2000);
    api.remove(NS, lost.name, true);
    api.compact();
    api.dropWatches();
    expect(await events.exited(lost.serverId, 3000)).toMatchObject({ reason: 'PROCESS_EXITED', exitCode: null });
    expect((await events.log(lost.serverId, /disappeared/, 0)).level).toBe('error');
    expect(api.requests.filter((r) => r.method === 'GET' && r.path === `/api/v1/namespaces/${NS}/pods` && r.query.get('watch') !== 'true')).toHaveLength(2);
    api.setGame(NS, kept.name, { terminated: { exitCode: 7, reason: 'Error' } });
    expect(await events.exited(kept.serverId, 3000)).toMatchObject({ exitCode: 7 });
  });

  it('keeps watching through API failures, backing off', async () => {
    const { serverId, name } = await launch();
    api.fail('GET', /watch=true/, 500, 3);
    api.dropWatches();
    await waitFor(() => warnings.filter((w) => /watch failed/.test(w)).length >= 3, 3000);
    api.setGame(NS, name, ...running(true));
    await events.portsBound(serverId, 3000);
  });

  it('adopts the pods it finds: running, ports taken, stoppable; close() leaves pods running', async () => {
    const small = settings({ regions: { 'eu-west': { namespace: NS, tcpHost: 'relay.test', udpHost: '192.0.2.1', portRange: [30000, 30003] } } });
    const first = newRuntime(small);
    await first.synced(2000);
    const { serverId, name } = await launch(first);
    // Started an hour ago: long past both start-up timeouts, which must not apply to a game that runs.
    const longAgo = new Date(Date.now() - 3_600_000).toISOString() as never;
    api.update(NS, name, (pod) => { pod.metadata!.creationTimestamp = longAgo; });
    api.setGame(NS, name, { running: { startedAt: longAgo } }, true);
    await first.close();
    expect(api.pod(NS, name)).toBeDefined();

    const second = await KubernetesRuntime.connect(small, { kubeConfig: api.kubeConfig(), warn: (m) => warnings.push(m) });
    runtimes.push(second);
    const secondEvents = new EventRecorder(second);
    expect(second.running()).toEqual([serverId]);
    await sleep(200);
    expect(second.running()).toEqual([serverId]);
    expect(api.requests.filter((r) => r.method === 'DELETE')).toHaveLength(0);
    // A fresh process has no reservations: the pod's ports are known from the cluster.
    expect((await second.allocatePorts('newcomer', [UDP_GAME, TCP_GAME])).map((p) => p.externalPort)).toEqual([30002, 30003]);
    await expect(second.allocatePorts('one-more', [TCP_GAME])).rejects.toThrow(/no free host port/);
    await second.stop(serverId, 1000);
    expect(await secondEvents.exited(serverId, 0)).toMatchObject({ reason: 'SHUTDOWN_SIGNAL' });
    secondEvents.stop();
  });

  it('reports metrics from metrics.k8s.io with the limit from the pod; usage null without a sample', async () => {
    const { serverId, name } = await launch();
    api.setGame(NS, name, ...running(true));
    await events.portsBound(serverId, 2000);
    expect(await runtime.metrics(serverId)).toMatchObject({ cpu_percent: null, memory_bytes: null, memory_limit_bytes: 1024 * 2 ** 20, network_rx_bytes: null });
    api.metrics.set(name, { timestamp: '2026-01-01T00:00:30Z', containers: [{ name: 'game', usage: { cpu: '125000000n', memory: '40Mi' } }] });
    expect(await runtime.metrics(serverId)).toEqual({
      cpu_percent: 12.5, memory_bytes: 40 * 2 ** 20, memory_limit_bytes: 1024 * 2 ** 20, network_rx_bytes: null, network_tx_bytes: null,
      sampled_at: '2026-01-01T00:00:30.000Z',
    });
    expect(await runtime.metrics('no-such-server')).toBeNull();
  });

  it('rejects start when the API server refuses the pod, and tracks nothing', async () => {
    api.fail('POST', /\/pods$/, 422);
    const ports = await runtime.allocatePorts('refused', [TCP_GAME]);
    await expect(runtime.start({ ...machineSpec({ serverId: 'refused', ports: [], build: 'image' }), ports }))
      .rejects.toThrow(/could not create pod sp-refused in namespace games \(region eu-west\): HTTP 422: injected failure 422/);
    expect(runtime.running()).toEqual([]);
  });

  it('reports a stop the API never confirms after the grace period and the stop timeout', async () => {
    const { serverId } = await launch();
    api.fail('DELETE', /./, 503, 100);
    const before = Date.now();
    await runtime.stop(serverId, 1000);
    expect(Date.now() - before).toBeGreaterThanOrEqual(1400);
    expect(await events.exited(serverId, 0)).toMatchObject({ reason: 'SHUTDOWN_SIGNAL', exitCode: null });
    expect((await events.log(serverId, /not confirmed gone/, 0)).level).toBe('warn');
    expect(runtime.running()).toEqual([]);
    expect(warnings.some((w) => /deleting pod sp-game-\d+ failed: HTTP 503/.test(w))).toBe(true);
  });

  it('starts from the config file SPAWNPOINT_K8S_CONFIG names', async () => {
    const file = path.join(os.tmpdir(), `spawnpoint-k8s-${process.pid}.json`);
    await writeFile(file, JSON.stringify({ regions: { sea: { namespace: NS, tcpHost: 'relay.sea', udpHost: '192.0.2.9', portRange: '32000-32009' } } }));
    try {
      const fromEnv = await KubernetesRuntime.fromEnvironment({ SPAWNPOINT_K8S_CONFIG: file }, { kubeConfig: api.kubeConfig() });
      runtimes.push(fromEnv);
      expect(await fromEnv.allocatePorts('x', [TCP_GAME])).toMatchObject([{ host: 'relay.sea', externalPort: 32000 }]);
      await expect(KubernetesRuntime.fromEnvironment({})).rejects.toThrow(/SPAWNPOINT_K8S_CONFIG is not set/);
    } finally {
      await rm(file, { force: true });
    }
  });

  it('needs the region to allocate ports once several regions are configured', async () => {
    const two = newRuntime(settings({
      regions: {
        'eu-west': { namespace: NS, tcpHost: 'relay.eu', udpHost: '192.0.2.1', portRange: [30000, 30099] },
        'us-east': { namespace: NS, tcpHost: 'relay.us', udpHost: '192.0.2.2', portRange: [31000, 31099] },
      },
    }));
    await expect(two.allocatePorts('s', [TCP_GAME])).rejects.toThrow(/needs the region/);
    expect(await two.allocatePorts('s', [TCP_GAME], 'us-east')).toMatchObject([{ host: 'relay.us', externalPort: 31000 }]);
    await expect(two.allocatePorts('t', [TCP_GAME], 'mars')).rejects.toThrow(/region mars has no cluster/);
  });

  describe('a region without tcpHost/udpHost: the address of the node the game runs on', () => {
    const node = (name: string, addresses: Array<[string, string]>, extra: { ready?: boolean; unschedulable?: boolean; labels?: Record<string, string>; taints?: object[] } = {}) => ({
      metadata: { name, labels: { 'kubernetes.io/hostname': name, ...extra.labels } },
      spec: { unschedulable: extra.unschedulable ?? false, taints: extra.taints ?? [] },
      status: { conditions: [{ type: 'Ready', status: extra.ready === false ? 'False' : 'True' }], addresses: addresses.map(([type, address]) => ({ type, address })) },
    }) as never;
    const pinnedTo = (pod: any) => pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms?.[0]?.matchFields?.[0]?.values?.[0];

    async function nodeHosted(region: Record<string, unknown> = {}): Promise<KubernetesRuntime> {
      await runtime.close();
      const created = newRuntime(settings({ regions: { 'eu-west': { namespace: NS, portRange: [30000, 30099], ...region } } }));
      await created.synced(2000);
      return created;
    }

    it('picks the least busy ready, schedulable node, gives its ExternalIP (else InternalIP), and pins the pod there', async () => {
      api.nodes.push(
        node('node-a', [['InternalIP', '10.0.0.1'], ['ExternalIP', '198.51.100.1']]),
        node('node-b', [['InternalIP', '10.0.0.2']]),
        node('node-c', [['InternalIP', '10.0.0.3']], { ready: false }),
        node('node-d', [['InternalIP', '10.0.0.4']], { unschedulable: true }),
        node('node-e', [['InternalIP', '10.0.0.5']], { taints: [{ key: 'gpu', effect: 'NoSchedule' }] }),
      );
      const onNodes = await nodeHosted();
      const first = await onNodes.allocatePorts('g1', [UDP_GAME, TCP_GAME]);
      expect(first.map((p) => p.host)).toEqual(['198.51.100.1', '198.51.100.1']);
      const spec = { ...machineSpec({ serverId: 'g1', ports: [], build: 'image' }), ports: first };
      await onNodes.start(spec);
      const sent = api.requests.find((r) => r.method === 'POST')!.body;
      expect(pinnedTo(sent)).toBe('node-a');
      expect(sent.spec).toEqual(podFor(spec, onNodes.settings, { node: 'node-a' }).spec);
      // node-a runs a game now: the next goes to node-b (the others are not ready, cordoned, or tainted).
      expect((await onNodes.allocatePorts('g2', [TCP_GAME]))[0].host).toBe('10.0.0.2');
      expect(api.requests.find((r) => r.path === '/api/v1/nodes')!.authorization).toBe('Bearer fake-token');
    });

    it('keeps a given host: only the blank protocol takes the node\'s address; the node selector and tolerations apply', async () => {
      api.nodes.push(
        node('other-pool', [['InternalIP', '10.0.0.9']]),
        node('tainted', [['InternalIP', '10.0.0.8']], { labels: { pool: 'games' }, taints: [{ key: 'games', value: 'yes', effect: 'NoSchedule' }] }),
      );
      const onNodes = await nodeHosted({ udpHost: '203.0.113.7', nodeSelector: { pool: 'games' }, tolerations: [{ key: 'games', operator: 'Equal', value: 'yes', effect: 'NoSchedule' }] });
      expect((await onNodes.allocatePorts('g1', [UDP_GAME])).map((p) => p.host)).toEqual(['203.0.113.7']);
      expect(api.requests.filter((r) => r.path === '/api/v1/nodes')).toHaveLength(0);
      const ports = await onNodes.allocatePorts('g2', [UDP_GAME, TCP_GAME]);
      expect(ports.map((p) => p.host)).toEqual(['203.0.113.7', '10.0.0.8']);
      expect(api.requests.find((r) => r.path === '/api/v1/nodes')!.query.get('labelSelector')).toBe('pool=games');
    });

    it('starts a spec again on the node its ports name, after its ports were released', async () => {
      api.nodes.push(node('node-a', [['InternalIP', '10.0.0.1']]), node('node-b', [['InternalIP', '10.0.0.2']]));
      const onNodes = await nodeHosted();
      const ports = (await onNodes.allocatePorts('g1', [TCP_GAME])).map((p) => ({ ...p, host: '10.0.0.2' }));
      await onNodes.releasePorts('g1');
      await onNodes.start({ ...machineSpec({ serverId: 'g1', ports: [], build: 'image' }), ports });
      expect(pinnedTo(api.requests.find((r) => r.method === 'POST')!.body)).toBe('node-b');
    });

    it('says why when no node can take the game, or the nodes cannot be listed', async () => {
      api.nodes.push(node('down', [['InternalIP', '10.0.0.1']], { ready: false }));
      const onNodes = await nodeHosted({ nodeSelector: { pool: 'games' } });
      await expect(onNodes.allocatePorts('g1', [TCP_GAME])).rejects.toThrow(/region eu-west: no ready, schedulable node matching pool=games to run the game on/);
      api.fail('GET', /\/api\/v1\/nodes/, 403);
      await expect(onNodes.allocatePorts('g1', [TCP_GAME])).rejects.toThrow(/could not list the nodes of region eu-west/);
    });
  });

  it('refuses to start what it cannot run, before calling the API', async () => {
    await expect(runtime.start({ ...machineSpec({ serverId: 'nozip', build: 'zip' }), artifactUrl: undefined })).rejects.toThrow(/needs an artifactUrl/);
    await expect(runtime.start(machineSpec({ serverId: 'far', region: 'us-east' }))).rejects.toThrow(/region us-east has no cluster/);
    expect(api.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
  });
});

describe('KubernetesRuntime with several servers replicas (adoptOnSight: false)', () => {
  // Each replica watches only the pods it started or adopted; another replica's pods still hold their ports,
  // and any replica can stop them or read their metrics.
  let a: KubernetesRuntime;
  let b: KubernetesRuntime;
  let aEvents: EventRecorder;
  let bEvents: EventRecorder;
  beforeEach(async () => {
    await runtime.close(); // the suite's runtime adopts every pod on sight
    a = newRuntime(settings(), { adoptOnSight: false });
    b = newRuntime(settings(), { adoptOnSight: false });
    await Promise.all([a.synced(2000), b.synced(2000)]);
    aEvents = new EventRecorder(a);
    bEvents = new EventRecorder(b);
  });
  afterEach(() => {
    aEvents.stop();
    bEvents.stop();
  });

  it('reports only its own pods; another replica\'s is unwatched (its ports taken) until adopted, then reported from its current state', async () => {
    const { serverId, name } = await launch(a);
    api.setGame(NS, name, ...running(true));
    await aEvents.portsBound(serverId, 2000);
    await waitFor(() => b.unwatched().includes(serverId));
    expect([a.running(), a.unwatched(), b.running()]).toEqual([[serverId], [], []]);
    expect((await b.allocatePorts('other', [TCP_GAME]))[0].externalPort).toBe(30002);
    await sleep(100);
    expect(bEvents.events).toEqual([]);

    expect(b.adopt(serverId)).toBe(true);
    expect([b.running(), b.unwatched()]).toEqual([[serverId], []]);
    await bEvents.portsBound(serverId, 2000);
    expect(b.adopt('no-such-server')).toBe(false);
  });

  it('stops another replica\'s pod (a stopped server\'s teardown runs on every replica) once gone; its end is the owner\'s to report', async () => {
    const { serverId, name } = await launch(a);
    api.setGame(NS, name, ...running(true));
    await waitFor(() => b.unwatched().includes(serverId));
    const uid = api.pod(NS, name)!.metadata!.uid;
    await b.stop(serverId, 1000);
    expect(api.pod(NS, name)).toBeUndefined();
    const deletes = api.requests.filter((r) => r.method === 'DELETE');
    expect(deletes.map((r) => [r.body.preconditions.uid, r.query.get('gracePeriodSeconds')])).toEqual([[uid, '1']]);
    expect(await aEvents.exited(serverId, 2000)).toMatchObject({ exitCode: 0 });
    expect(bEvents.events).toEqual([]);
    await b.stop(serverId);
    expect(api.requests.filter((r) => r.method === 'DELETE')).toHaveLength(1);
  });

  it('reads the metrics of another replica\'s pod', async () => {
    const { serverId, name } = await launch(a);
    api.setGame(NS, name, ...running(true));
    await waitFor(() => b.unwatched().includes(serverId));
    api.metrics.set(name, { timestamp: '2026-01-01T00:00:30Z', containers: [{ name: 'game', usage: { cpu: '250000000n', memory: '8Mi' } }] });
    expect(await b.metrics(serverId)).toMatchObject({ cpu_percent: 25, memory_bytes: 8 * 2 ** 20, memory_limit_bytes: 1024 * 2 ** 20 });
  });

  it('starts a server here after another replica\'s pod of it ended (a crash restart on this replica), deleting that pod first', async () => {
    const { serverId, name, ports } = await launch(a);
    await a.close(); // its replica is gone: nobody cleans the ended pod up
    const old = api.pod(NS, name)!.metadata!.uid;
    api.setGame(NS, name, { terminated: { exitCode: 3, reason: 'Error' } });
    await waitFor(() => b.unwatched().includes(serverId));
    for (const until = Date.now() + 2000; (await b.metrics(serverId)) !== null;) {
      if (Date.now() > until) throw new Error('b never saw the pod end');
      await sleep(10);
    }
    await b.start({ ...machineSpec({ serverId, ports: [], build: 'image' }), ports });
    expect(api.requests.filter((r) => r.method === 'DELETE').map((r) => r.body.preconditions.uid)).toEqual([old]);
    expect(api.pod(NS, name)!.metadata!.uid).not.toBe(old);
    expect(b.running()).toEqual([serverId]);
    await sleep(50);
    expect(bEvents.events.filter((e) => e.type === 'exited')).toEqual([]);
  });

  it('refuses to start a server whose pod another replica still runs', async () => {
    const { serverId, ports } = await launch(a);
    await waitFor(() => b.unwatched().includes(serverId));
    await expect(b.start({ ...machineSpec({ serverId, ports: [], build: 'image' }), ports }))
      .rejects.toThrow(`server ${serverId} is already running (pod sp-${serverId}, watched by another servers replica)`);
    expect(api.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function waitFor(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(10);
  }
}
