/** @jest-environment ./libs/runtime/src/kubernetes/testing/native-modules-environment.js */
// Per-pod machine owners with the kubernetes runtime (ADR-0021), on the real PostgreSQL and against the
// in-process fake API server: each servers replica watches only its own pods; a replica started under a new
// name (a rolling upgrade, a rescheduled pod) leaves a live owner's servers alone, even a launching one whose
// pod does not exist yet, and adopts the pods of an owner whose lease expired (or was resigned) instead of
// recording them lost; only a server whose pod is gone is recorded stopped.
import { randomUUID } from 'node:crypto';
import type { ServerState } from '@spawnpoint/domain';
import { createReadModels, migrateReadModels, ReadModels } from '@spawnpoint/read-models';
import { KubernetesRuntime, type LogEntry } from '@spawnpoint/runtime';
import { FakeApiServer } from '../../../libs/runtime/src/kubernetes/testing/fake-api-server';
import { machineSpec, TCP_GAME } from '../../../libs/runtime/src/kubernetes/testing/fixtures';
import { parseKubernetesSettings } from '../../../libs/runtime/src/kubernetes/settings';
import { EventRecorder } from '../../../libs/runtime/src/testing/event-recorder';
import { createTestDatabase, TestDatabase } from '../../../test/support/databases';
import { HostPortReservations } from './host-port-reservations';
import { kubernetesOwnerId, MachineOwners } from './machine-owners';
import { ReconcileHost, reconcileMachines, takeOverExpired } from './reconcile-machines';

jest.setTimeout(60_000);

const NS = 'games';
const settings = parseKubernetesSettings({
  regions: { 'eu-west': { namespace: NS, tcpHost: 'relay.test', udpHost: '192.0.2.1', portRange: [26500, 26599] } },
  terminationGracePeriodSeconds: 1, startupTimeoutMs: 60_000, pendingTimeoutMs: 60_000, stopTimeoutMs: 500,
});
const NOW = new Date('2026-11-29T00:00:00Z');

interface Replica { owners: MachineOwners; runtime: KubernetesRuntime; events: EventRecorder; lost: string[]; logs: LogEntry[] }

describe('per-pod machine owners with the kubernetes runtime', () => {
  let db: TestDatabase;
  let rm: ReadModels;
  let api: FakeApiServer;
  const replicas: Replica[] = [];
  const store = new Map<string, ServerState>();

  beforeAll(async () => {
    db = await createTestDatabase('k8sowners');
    await migrateReadModels(db.url);
    rm = createReadModels(db.url);
  });
  afterAll(async () => {
    await rm?.$disconnect();
    await db?.drop();
  });
  beforeEach(async () => {
    api = await new FakeApiServer().start();
  });
  afterEach(async () => {
    for (const r of replicas.splice(0)) {
      r.events.stop();
      await r.runtime.close();
    }
    await api.close();
  });

  /** A servers replica: its pod's owner id, a lease, a runtime watching only its own pods. */
  const replica = async (podName: string, leaseMs = 60_000): Promise<Replica> => {
    const owners = new MachineOwners(rm, { ownerId: kubernetesOwnerId({ SPAWNPOINT_POD_NAMESPACE: 'spawnpoint', SPAWNPOINT_POD_NAME: podName }), leaseMs, heartbeatMs: 10_000 });
    await owners.renew();
    const runtime = new KubernetesRuntime(settings, { kubeConfig: api.kubeConfig(), warn: () => undefined, ledger: new HostPortReservations(rm), adoptOnSight: false });
    await runtime.synced(2000);
    const r = { owners, runtime, events: new EventRecorder(runtime), lost: [], logs: [] };
    replicas.push(r);
    return r;
  };

  /** As the servers app does: the owner first, then ServerStarted (here: the store and the read model), then the pod (unless `pod` is false). */
  const launch = async (on: Replica, status: 'launching' | 'running', pod = true): Promise<string> => {
    const serverId = randomUUID();
    await on.owners.claim(serverId);
    const ports = await on.runtime.allocatePorts(serverId, [TCP_GAME], 'eu-west');
    store.set(serverId, state(serverId, status));
    await rm.server.create({ data: {
      id: serverId, projectId: 'p1', name: 'g', status, region: 'eu-west', computeSize: 'small', versionTag: 'default', networkPorts: [], serviceType: 'match_based',
      autoRestart: false, isPoolServer: false, matchId: serverId, createdAt: NOW, updatedAt: NOW,
    } });
    if (pod) await on.runtime.start({ ...machineSpec({ serverId, ports: [], build: 'image' }), region: 'eu-west', ports });
    return serverId;
  };

  const host = (r: Replica): ReconcileHost => ({
    runtime: r.runtime,
    activeServerIds: async () => [...store].filter(([, s]) => s.status === 'launching' || s.status === 'running').map(([id]) => id),
    ownership: (ids) => r.owners.classify(ids),
    takeOver: (id, from) => r.owners.takeOver(id, from),
    load: async (id) => store.get(id) ?? { status: 'none' },
    recordLost: async (id) => void r.lost.push(id),
    adopted: () => undefined,
    log: (_projectId, entry) => void r.logs.push(entry),
    now: () => NOW,
  });

  /** The owner's lease runs out (as when its pod died without a word). */
  const expire = async (r: Replica) => {
    await new MachineOwners(rm, { ownerId: r.owners.ownerId, leaseMs: 1, heartbeatMs: 10_000 }).renew();
    await new Promise((resolve) => setTimeout(resolve, 20));
  };
  const ownerOf = async (ids: string[]) => (await rm.$queryRaw<{ server_id: string; owner_id: string; taken_over_from: string | null }[]>`
    SELECT server_id::text AS server_id, owner_id, taken_over_from FROM server_owners WHERE server_id = ANY(${ids}::uuid[])`)
    .reduce((m, r) => m.set(r.server_id, [r.owner_id, r.taken_over_from]), new Map<string, [string, string | null]>());
  const sorted = (ids: string[]) => [...ids].sort();

  it('a replica under a new name leaves a live owner alone, and adopts the pods of an owner whose lease expired', async () => {
    const old = await replica('sp-servers-7d4-old');
    const live = await replica('sp-servers-7d4-live');
    const runs = await launch(old, 'running');
    const starting = await launch(old, 'launching');
    const vanished = await launch(old, 'running');
    const theirs = await launch(live, 'running');
    const creating = await launch(live, 'launching', false); // its pod is not created yet
    api.setGame(NS, `sp-${runs}`, { running: { startedAt: new Date().toISOString() as never } }, true);
    await old.events.portsBound(runs, 2000);
    // The old replica's pod is gone (a rolling upgrade); one of its games' pods went while nobody watched.
    await old.runtime.close();
    api.remove(NS, `sp-${vanished}`);

    const fresh = await replica('sp-servers-9f1-new');
    expect(fresh.owners.ownerId).toBe('kubernetes:spawnpoint:sp-servers-9f1-new');
    // On start, every owner still holds its lease: nothing is touched.
    expect(await reconcileMachines(host(fresh))).toEqual({ adopted: 0, stopped: 0, lost: 0, takenOver: 0 });
    expect(fresh.runtime.running()).toEqual([]);
    expect(fresh.runtime.unwatched()).toEqual(sorted([runs, starting, theirs]));
    expect(await takeOverExpired(host(fresh), () => fresh.owners.expiredServers())).toEqual({ adopted: 0, stopped: 0, lost: 0, takenOver: 0 });

    // The old owner's lease runs out: the next heartbeat adopts its pods, and records lost only the one without a pod.
    await expire(old);
    expect(await takeOverExpired(host(fresh), () => fresh.owners.expiredServers())).toEqual({ adopted: 2, stopped: 0, lost: 1, takenOver: 3 });
    expect(fresh.runtime.running().sort()).toEqual(sorted([runs, starting]));
    expect(fresh.lost).toEqual([vanished]);
    expect(fresh.logs.map((l) => [l.serverId, l.message])).toEqual([[vanished, expect.stringMatching(/lease expired\) and its pod is gone: recorded stopped \(MACHINE_LOST\)/)]]);
    // An adopted pod's state is reported from now on by its new owner.
    await fresh.events.portsBound(runs, 2000);
    const owners = await ownerOf([runs, starting, vanished, theirs, creating]);
    for (const id of [runs, starting, vanished]) expect(owners.get(id)).toEqual([fresh.owners.ownerId, old.owners.ownerId]);
    // The live owner's servers, its launching one without a pod included, are still its own; no pod was deleted.
    expect(owners.get(theirs)).toEqual([live.owners.ownerId, null]);
    expect(owners.get(creating)).toEqual([live.owners.ownerId, null]);
    expect(api.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
    expect(live.runtime.running().sort()).toEqual([theirs]);

    // The live replica shuts down in order (its pods run on): it resigns its lease, and its pod is adopted at once.
    await live.runtime.close();
    await live.owners.resign();
    expect(await takeOverExpired(host(fresh), () => fresh.owners.expiredServers())).toEqual({ adopted: 1, stopped: 0, lost: 1, takenOver: 2 });
    expect(fresh.runtime.running().sort()).toEqual(sorted([runs, starting, theirs]));
    expect(fresh.lost).toEqual([vanished, creating]);
    expect(fresh.runtime.unwatched()).toEqual([]);
  });

  it('a replica restarted under the same pod name adopts its own pods on start, without a take-over', async () => {
    const before = await replica('sp-servers-0');
    const mine = await launch(before, 'running');
    const gone = await launch(before, 'launching', false);
    await before.runtime.close();

    const after = await replica('sp-servers-0');
    expect(after.owners.ownerId).toBe(before.owners.ownerId);
    expect(await reconcileMachines(host(after))).toEqual({ adopted: 1, stopped: 0, lost: 1, takenOver: 0 });
    expect(after.runtime.running()).toEqual([mine]);
    expect(after.lost).toEqual([gone]);
    expect((await ownerOf([mine])).get(mine)).toEqual([after.owners.ownerId, null]);
  });
});

function state(serverId: string, status: 'launching' | 'running'): ServerState {
  return {
    status, serverId, projectId: 'p1', name: serverId, region: 'eu-west', computeSize: 'small', versionTag: 'default', version: 1, buildId: 'b',
    networkPorts: [], startupArgs: null, serviceType: 'match_based', autoRestart: false, customData: null, ttl: null, matchId: 'm',
    environmentVariables: {}, isPoolServer: false, createdAt: '', updatedAt: '', restarts: 0, poolClaimedAt: null, startedAt: '2026-11-29T00:00:00.000Z',
  } as ServerState;
}
