/** @jest-environment ./libs/runtime/src/kubernetes/testing/native-modules-environment.js */
// Host ports of the kubernetes runtime reserved in PostgreSQL (ADR-0003, ADR-0021): two servers replicas,
// each a KubernetesRuntime (against one fake API server) with its own connection pool to one ledger. Their
// concurrent allocations never share a port; a retried allocation gets the same ports; a release frees
// them; a full range says so and leaves nothing reserved; the sweep removes what no teardown released.
import { randomUUID } from 'node:crypto';
import { createReadModels, migrateReadModels, ReadModels } from '@spawnpoint/read-models';
import { KubernetesRuntime } from '@spawnpoint/runtime';
import { FakeApiServer } from '../../../libs/runtime/src/kubernetes/testing/fake-api-server';
import { machineSpec, TCP_GAME, UDP_GAME } from '../../../libs/runtime/src/kubernetes/testing/fixtures';
import { parseKubernetesSettings } from '../../../libs/runtime/src/kubernetes/settings';
import { createTestDatabase, TestDatabase } from '../../../test/support/databases';
import { HostPortReservations } from './host-port-reservations';

jest.setTimeout(60_000);

const NS = 'games';
const settings = parseKubernetesSettings({
  regions: {
    'eu-west': { namespace: NS, tcpHost: 'relay.test', udpHost: '192.0.2.1', portRange: [26000, 26199] },
    'us-east': { namespace: NS, tcpHost: 'relay.test', udpHost: '192.0.2.1', portRange: [26300, 26302] },
  },
  terminationGracePeriodSeconds: 1, startupTimeoutMs: 60_000, pendingTimeoutMs: 60_000, stopTimeoutMs: 500,
});

describe('host ports reserved in PostgreSQL, shared by two servers replicas', () => {
  let db: TestDatabase;
  let rmA: ReadModels;
  let rmB: ReadModels;
  let api: FakeApiServer;
  let a: KubernetesRuntime;
  let b: KubernetesRuntime;
  let ledger: HostPortReservations;

  beforeAll(async () => {
    db = await createTestDatabase('hostports');
    await migrateReadModels(db.url);
    rmA = createReadModels(db.url);
    rmB = createReadModels(db.url);
    ledger = new HostPortReservations(rmA);
  });
  afterAll(async () => {
    await Promise.all([rmA?.$disconnect(), rmB?.$disconnect()]);
    await db?.drop();
  });
  beforeEach(async () => {
    await rmA.$executeRaw`DELETE FROM host_port_reservations`;
    api = await new FakeApiServer().start();
    const replica = (rm: ReadModels) => new KubernetesRuntime(settings, { kubeConfig: api.kubeConfig(), warn: () => undefined, ledger: new HostPortReservations(rm), adoptOnSight: false });
    [a, b] = [replica(rmA), replica(rmB)];
    await Promise.all([a.synced(2000), b.synced(2000)]);
  });
  afterEach(async () => {
    await Promise.all([a.close(), b.close()]);
    await api.close();
  });

  const rows = () => rmA.$queryRaw<{ region: string; port: number; server_id: string }[]>`
    SELECT region, port, server_id::text AS server_id FROM host_port_reservations ORDER BY region, port`;

  it('never hands one port to two servers: 2 × 50 concurrent allocations on two replicas', async () => {
    // 200 ports for 200 wanted: the replicas' picks must overlap, and only the ledger's key keeps them apart.
    const ids = Array.from({ length: 100 }, () => randomUUID());
    const allocated = await Promise.all(ids.map((id, i) => (i % 2 === 0 ? a : b).allocatePorts(id, [UDP_GAME, TCP_GAME], 'eu-west')));
    const ports = allocated.flatMap((p) => p.map((x) => x.externalPort));
    expect(ports).toHaveLength(200);
    expect(new Set(ports).size).toBe(200);
    expect(ports.every((p) => p >= 26000 && p <= 26199)).toBe(true);
    // The ledger holds exactly what each server was given.
    const held = await ledger.held('eu-west');
    expect(held.size).toBe(200);
    ids.forEach((id, i) => {
      for (const port of allocated[i]) expect([port.externalPort, held.get(port.externalPort)]).toEqual([port.externalPort, id]);
    });
  });

  it('gives a server that holds ports the same ones again, on either replica (a retried start, a crash restart elsewhere)', async () => {
    const id = randomUUID();
    const first = await a.allocatePorts(id, [UDP_GAME, TCP_GAME], 'eu-west');
    const again = await a.allocatePorts(id, [UDP_GAME, TCP_GAME], 'eu-west');
    const elsewhere = await b.allocatePorts(id, [UDP_GAME, TCP_GAME], 'eu-west');
    const numbers = first.map((p) => p.externalPort);
    expect(again.map((p) => p.externalPort)).toEqual(numbers);
    expect(elsewhere.map((p) => p.externalPort)).toEqual(numbers);
    expect((await rows()).map((r) => [r.port, r.server_id])).toEqual(numbers.map((port) => [port, id]));
  });

  it('frees a server\'s ports on release, for the other replica to hand out', async () => {
    const [x, y, z] = [randomUUID(), randomUUID(), randomUUID()];
    const held = (await a.allocatePorts(x, [UDP_GAME, TCP_GAME, TCP_GAME], 'us-east')).map((p) => p.externalPort);
    expect([...held].sort()).toEqual([26300, 26301, 26302]);
    await expect(b.allocatePorts(y, [TCP_GAME], 'us-east')).rejects.toThrow(/region us-east: no free host port in range 26300-26302 \(1 needed\); 3 of its ports are held by live pods or reserved by other servers/);
    await a.releasePorts(x);
    expect(await rows()).toEqual([]);
    const yPorts = (await b.allocatePorts(y, [TCP_GAME, UDP_GAME], 'us-east')).map((p) => p.externalPort);
    expect(new Set(yPorts).size === 2 && yPorts.every((p) => held.includes(p))).toBe(true);
    // All or nothing: two ports wanted, one free.
    await expect(a.allocatePorts(z, [TCP_GAME, UDP_GAME], 'us-east')).rejects.toThrow(/no free host port in range 26300-26302 \(2 needed\)/);
    expect((await rows()).map((r) => r.server_id)).toEqual([y, y]);
  });

  it('claims the ports again when the game starts, and refuses to start on a port another server holds', async () => {
    const [x, y] = [randomUUID(), randomUUID()];
    const ports = await a.allocatePorts(x, [TCP_GAME], 'eu-west');
    // Another replica's late teardown of x's previous run released them: the start reserves them again.
    await b.releasePorts(x);
    expect(await rows()).toEqual([]);
    await a.start({ ...machineSpec({ serverId: x, region: 'eu-west', ports: [], build: 'image' }), ports });
    expect((await rows()).map((r) => [r.port, r.server_id])).toEqual([[ports[0].externalPort, x]]);
    // A spec naming a port another server holds is refused before any pod is created.
    await expect(b.start({ ...machineSpec({ serverId: y, region: 'eu-west', ports: [], build: 'image' }), ports }))
      .rejects.toThrow(`server ${y}: host port ${ports[0].externalPort} of region eu-west is reserved for another server`);
    expect(api.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(b.running()).toEqual([]);
  });

  it('sweeps reservations of servers no longer live that are older than the grace, keeping live and recent ones', async () => {
    const NOW = new Date('2026-11-29T00:00:00Z');
    const server = async (status: string) => {
      const id = randomUUID();
      await rmA.server.create({ data: {
        id, projectId: 'p1', name: 'g', status, region: 'eu-west', computeSize: 'small', versionTag: 'default', networkPorts: [], serviceType: 'match_based',
        autoRestart: false, isPoolServer: false, matchId: id, createdAt: NOW, updatedAt: NOW,
      } });
      return id;
    };
    const [running, launching, stopped, unknown] = [await server('running'), await server('launching'), await server('stopped'), randomUUID()];
    for (const [i, id] of [running, launching, stopped, unknown].entries()) await ledger.reserve('eu-west', id, [26100 + i]);
    await rmA.$executeRaw`UPDATE host_port_reservations SET created_at = now() - interval '10 minutes'`;
    const fresh = await server('stopped'); // a restart in flight: reserved, not yet live in the read model
    await ledger.reserve('eu-west', fresh, [26110]);
    expect(await ledger.sweep(5 * 60_000)).toBe(2);
    expect((await rows()).map((r) => r.server_id)).toEqual([running, launching, fresh]);
    expect(await ledger.sweep(0)).toBe(1);
  });
});
