// Machine ownership on the real PostgreSQL (ADR-0021): two servers replicas' owners with leases; a live
// owner's servers are left alone, an expired owner's are taken over by exactly one replica; the owner id of
// a data dir is stable across restarts.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createReadModels, migrateReadModels, ReadModels } from '@spawnpoint/read-models';
import { createTestDatabase, TestDatabase } from '../../../test/support/databases';
import { kubernetesOwnerId, MachineOwners, ownerLeaseOptions, processOwnerId } from './machine-owners';

jest.setTimeout(30_000);

describe('MachineOwners', () => {
  let db: TestDatabase;
  let rm: ReadModels;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const NOW = new Date('2026-11-28T00:00:00Z');

  beforeAll(async () => {
    db = await createTestDatabase('owners');
    await migrateReadModels(db.url);
    rm = createReadModels(db.url);
  });
  afterAll(async () => {
    await rm?.$disconnect();
    await db.drop();
  });

  const liveServer = async (status = 'running') => {
    const id = randomUUID();
    await rm.server.create({ data: {
      id, projectId: 'p1', name: 'g', status, region: 'eu-west', computeSize: 'small', versionTag: 'default', networkPorts: [], serviceType: 'match_based',
      autoRestart: false, isPoolServer: false, matchId: id, createdAt: NOW, updatedAt: NOW,
    } });
    return id;
  };

  it('keeps a data dir\'s owner id across restarts, and gives another data dir another', () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'sp-owner-id-'));
    try {
      const a = processOwnerId(path.join(tmp, 'a', 'machines'));
      expect(processOwnerId(path.join(tmp, 'a', 'machines'))).toBe(a);
      expect(a.startsWith(`${os.hostname()}-`)).toBe(true);
      expect(processOwnerId(path.join(tmp, 'b', 'machines'))).not.toBe(a);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('names a kubernetes owner by the servers pod: namespace and name from the downward API, else the host name', () => {
    expect(kubernetesOwnerId({ SPAWNPOINT_POD_NAMESPACE: 'spawnpoint', SPAWNPOINT_POD_NAME: 'sp-servers-5c9-x2' })).toBe('kubernetes:spawnpoint:sp-servers-5c9-x2');
    expect(kubernetesOwnerId({})).toBe(`kubernetes:default:${os.hostname()}`);
  });

  it('classifies servers: its own, a live owner\'s, an expired owner\'s, and none recorded as its own', async () => {
    const a = new MachineOwners(rm, { ownerId: `a-${randomUUID()}`, leaseMs: 60_000, heartbeatMs: 10_000 });
    const b = new MachineOwners(rm, { ownerId: `b-${randomUUID()}`, leaseMs: 60_000, heartbeatMs: 10_000 });
    const dead = new MachineOwners(rm, { ownerId: `dead-${randomUUID()}`, leaseMs: 200, heartbeatMs: 10_000 });
    await Promise.all([a.renew(), b.renew(), dead.renew()]);
    const [sa, sb, sd, none] = await Promise.all([liveServer(), liveServer(), liveServer(), liveServer()]);
    await a.claim(sa);
    await b.claim(sb);
    await dead.claim(sd);
    await sleep(400);
    const seen = await a.classify([sa, sb, sd, none]);
    expect([...seen.entries()].map(([id, o]) => [id, o.ownership])).toEqual([[sa, 'mine'], [sb, 'live'], [sd, 'expired'], [none, 'mine']]);
    expect(seen.get(sd)!.ownerId).toBe(dead.ownerId);
    expect([await a.owns(sa), await a.owns(sb), await a.owns(none), await b.owns(sa)]).toEqual([true, false, true, false]);
    expect(await a.expiredServers()).toEqual([sd]);
    // The owner back (its lease renewed) is live again: nothing to take over.
    await dead.renew();
    expect(await a.expiredServers()).toEqual([]);
    expect(await a.takeOver(sd, dead.ownerId)).toBe(false);
  });

  it('lets exactly one of two replicas take an expired owner\'s server over', async () => {
    const a = new MachineOwners(rm, { ownerId: `a-${randomUUID()}`, leaseMs: 60_000, heartbeatMs: 10_000 });
    const b = new MachineOwners(rm, { ownerId: `b-${randomUUID()}`, leaseMs: 60_000, heartbeatMs: 10_000 });
    const dead = new MachineOwners(rm, { ownerId: `dead-${randomUUID()}`, leaseMs: 100, heartbeatMs: 10_000 });
    await Promise.all([a.renew(), b.renew(), dead.renew()]);
    const ids = await Promise.all(Array.from({ length: 10 }, () => liveServer()));
    for (const id of ids) await dead.claim(id);
    await sleep(300);
    const won = await Promise.all(ids.flatMap((id) => [a.takeOver(id, dead.ownerId), b.takeOver(id, dead.ownerId)]));
    for (let i = 0; i < ids.length; i++) expect(Number(won[2 * i]) + Number(won[2 * i + 1])).toBe(1);
    const owners = await rm.$queryRaw<{ owner_id: string; taken_over_from: string }[]>`SELECT owner_id, taken_over_from FROM server_owners WHERE server_id = ANY(${ids}::uuid[])`;
    expect(owners.every((o) => [a.ownerId, b.ownerId].includes(o.owner_id) && o.taken_over_from === dead.ownerId)).toBe(true);
  });

  it('heartbeats its lease: a started owner does not expire; a stopped one does', async () => {
    const a = new MachineOwners(rm, ownerLeaseOptions(`a-${randomUUID()}`, { SPAWNPOINT_OWNER_LEASE_MS: '600' }));
    expect(a.options.heartbeatMs).toBe(100);
    const other = new MachineOwners(rm, { ownerId: `o-${randomUUID()}`, leaseMs: 60_000, heartbeatMs: 10_000 });
    await other.renew();
    const id = await liveServer('launching');
    await a.start();
    await a.claim(id);
    await sleep(1200);
    expect((await other.classify([id])).get(id)!.ownership).toBe('live');
    a.stop();
    await sleep(900);
    expect((await other.classify([id])).get(id)!.ownership).toBe('expired');
    expect(await other.expiredServers()).toContain(id);
  });
});
