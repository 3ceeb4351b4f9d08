/** @jest-environment ./libs/runtime/src/kubernetes/testing/native-modules-environment.js */
// Reconcile on start with the kubernetes runtime: pods are found by their server label (through the real
// client, against the in-process fake API server), adopted when their server is live, deleted when not;
// live servers whose pod is gone are recorded lost.
import type { ServerState } from '@spawnpoint/domain';
import { KubernetesRuntime, type LogEntry, type MachineSpec } from '@spawnpoint/runtime';
import { FakeApiServer } from '../../../libs/runtime/src/kubernetes/testing/fake-api-server';
import { machineSpec, TCP_GAME } from '../../../libs/runtime/src/kubernetes/testing/fixtures';
import { parseKubernetesSettings } from '../../../libs/runtime/src/kubernetes/settings';
import { reconcileMachines } from './reconcile-machines';

const NS = 'games';
const settings = parseKubernetesSettings({
  regions: { 'eu-west': { namespace: NS, tcpHost: 'relay.test', udpHost: '192.0.2.1', portRange: [30000, 30099] } },
  terminationGracePeriodSeconds: 1, startupTimeoutMs: 60_000, pendingTimeoutMs: 60_000, stopTimeoutMs: 500,
});

const state = (serverId: string, status: 'launching' | 'running' | 'stopped'): ServerState => ({
  status, serverId, projectId: 'p1', name: serverId, region: 'eu-west', computeSize: 'small', versionTag: 'default', version: 1, buildId: 'b',
  networkPorts: [], startupArgs: null, serviceType: 'match_based', autoRestart: false, customData: null, ttl: null, matchId: 'm',
  environmentVariables: {}, isPoolServer: false, createdAt: '', updatedAt: '', restarts: 0, poolClaimedAt: null, startedAt: '2026-11-24T00:00:00.000Z',
  ...(status === 'stopped' ? { stoppedAt: '2026-11-24T00:01:00.000Z', stopReason: 'SHUTDOWN_SIGNAL', exitCode: null } : {}),
} as ServerState);

describe('reconcileMachines with the kubernetes runtime', () => {
  let api: FakeApiServer;
  const runtimes: KubernetesRuntime[] = [];
  beforeEach(async () => {
    api = await new FakeApiServer().start();
  });
  afterEach(async () => {
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
    await api.close();
  });

  it('adopts pods of live servers, deletes the others, records live servers without a pod lost', async () => {
    // An earlier servers service started three pods, then went away (pods outlive it).
    const before = new KubernetesRuntime(settings, { kubeConfig: api.kubeConfig(), warn: () => undefined });
    runtimes.push(before);
    await before.synced(2000);
    for (const serverId of ['live', 'finished', 'stray']) {
      const ports = await before.allocatePorts(serverId, [TCP_GAME]);
      await before.start({ ...machineSpec({ serverId, ports: [], build: 'image' }), region: 'eu-west', ports });
      api.setGame(NS, `sp-${serverId}`, { running: { startedAt: new Date().toISOString() as never } }, true);
    }
    await before.close();

    // The store: 'live' runs, 'finished' was stopped while nobody watched, 'stray' was never recorded, 'gone' lost its pod.
    const store = new Map<string, ServerState>([['live', state('live', 'running')], ['finished', state('finished', 'stopped')], ['gone', state('gone', 'launching')]]);
    const lost: string[] = [];
    const adopted: { id: string; spec: MachineSpec | null }[] = [];
    const logs: LogEntry[] = [];
    const runtime = await KubernetesRuntime.connect(settings, { kubeConfig: api.kubeConfig(), warn: () => undefined });
    runtimes.push(runtime);
    const outcome = await reconcileMachines({
      runtime,
      activeServerIds: async () => ['live', 'gone'],
      ownership: async (ids) => new Map(ids.map((id) => [id, { ownership: 'mine' as const, ownerId: null }])),
      takeOver: async () => true,
      load: async (id) => store.get(id) ?? { status: 'none' },
      recordLost: async (id) => void lost.push(id),
      adopted: (id, spec) => void adopted.push({ id, spec }),
      log: (_projectId, entry) => void logs.push(entry),
      now: () => new Date('2026-11-21T12:00:00.000Z'),
    });

    expect(outcome).toEqual({ adopted: 1, stopped: 2, lost: 1, takenOver: 0 });
    expect(adopted).toEqual([{ id: 'live', spec: null }]);
    expect(lost).toEqual(['gone']);
    expect(logs.map((l) => [l.serverId, l.message, l.timestamp.toISOString()])).toEqual([['gone', expect.stringMatching(/MACHINE_LOST/), '2026-11-21T12:00:00.000Z']]);
    const deleted = api.requests.filter((r) => r.method === 'DELETE').map((r) => r.path.split('/').pop());
    expect(deleted.sort()).toEqual(['sp-finished', 'sp-stray']);
    expect(api.pod(NS, 'sp-live')).toBeDefined();
    expect(runtime.running()).toEqual(['live']);
  });

  it('launches its own server that never ran again instead of recording it lost; one that ran, an expired owner\'s, or one it cannot launch is lost', async () => {
    const neverRan = (id: string) => ({ ...state(id, 'launching'), startedAt: null }) as ServerState;
    const store = new Map<string, ServerState>([
      ['never-ran', neverRan('never-ran')], ['ran', state('ran', 'running')], ['build-gone', neverRan('build-gone')], ['expired-owners', neverRan('expired-owners')],
    ]);
    const relaunched: string[] = [];
    const lost: string[] = [];
    const runtime = await KubernetesRuntime.connect(settings, { kubeConfig: api.kubeConfig(), warn: () => undefined });
    runtimes.push(runtime);
    const outcome = await reconcileMachines({
      runtime,
      activeServerIds: async () => [...store.keys()],
      ownership: async (ids) => new Map(ids.map((id) => [id, id === 'expired-owners' ? { ownership: 'expired' as const, ownerId: 'dead' } : { ownership: 'mine' as const, ownerId: null }])),
      takeOver: async () => true,
      load: async (id) => store.get(id) ?? { status: 'none' },
      relaunch: async (id) => {
        relaunched.push(id);
        return id !== 'build-gone';
      },
      recordLost: async (id) => void lost.push(id),
      adopted: () => undefined,
      log: () => undefined,
      now: () => new Date('2026-11-21T12:00:00.000Z'),
    });
    expect(relaunched.sort()).toEqual(['build-gone', 'never-ran']);
    expect(lost.sort()).toEqual(['build-gone', 'expired-owners', 'ran']);
    expect(outcome).toMatchObject({ adopted: 1, lost: 3 });
  });
});
