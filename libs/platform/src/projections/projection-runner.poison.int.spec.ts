// A poison event on real PostgreSQL: it is retried a bounded number of times, parked with its error and
// skipped, while the good events of every tenant around it are applied and the checkpoint moves on; an
// admin replay applies it after a fix. A database outage, unlike a poison event, parks nothing.
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import type { PostgresEventStore } from '@spawnpoint/eventstore';
import { closeReadModels, createReadModels, ReadModels } from '@spawnpoint/read-models';
import { captureLogs } from '../../../logging/src/testing';
import { createProjectionTestBed, ProjectionTestBed } from '../../../../test/support/projections';
import { LAG_DEGRADED_SECONDS, listParked, projectionsHealth } from './parked-events';
import { Projection, ProjectionRunner } from './projection-runner';

/** Stores `<name>:<stream>:<revision>` rows for each applied event; an event with `poison` fails until `fixed`. */
function tenantsProjection(name: string, category: string, state: { fixed: boolean; calls: number }): Projection {
  return {
    name,
    categories: [category],
    async apply(event, tx) {
      if ((event.data as { poison?: boolean }).poison) {
        state.calls++;
        if (!state.fixed) throw new Error(`cannot apply ${event.streamId}@${event.revision}`);
      }
      const key = `${name}:${event.streamId}:${event.revision}`;
      await tx.checkpoint.upsert({ where: { name: key }, create: { name: key, position: event.position }, update: { position: event.position } });
    },
  };
}

/** A TCP proxy to PostgreSQL that can be cut (every connection dropped, new ones refused) and restored. */
async function cuttableProxy(target: URL): Promise<{ url: string; cut(): void; restore(): void; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let down = false;
  const server = net.createServer((client) => {
    if (down) return client.destroy();
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target.toString());
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    cut() {
      down = true;
      for (const s of sockets) s.destroy();
    },
    restore() {
      down = false;
    },
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}

describe('ProjectionRunner: poison events', () => {
  let bed: ProjectionTestBed;
  let store: PostgresEventStore;
  let models: ReadModels;

  beforeAll(async () => {
    bed = await createProjectionTestBed('poison');
    ({ store, models } = bed);
  });
  afterAll(() => bed?.close());

  const applied = async (prefix: string) =>
    (await models.checkpoint.findMany({ where: { name: { startsWith: `${prefix}:` } } })).map((r) => r.name.slice(prefix.length + 1)).sort();
  const checkpoint = async (name: string) => (await models.checkpoint.findUnique({ where: { name } }))?.position;
  const append = async (stream: string, data: object) => (await store.appendToStream(stream, [{ type: 'Changed', data }], 'any')).position;

  it('parks the one event that fails, applies the good events of both tenants around it, and replays it after a fix', async () => {
    const state = { fixed: false, calls: 0 };
    const runner = new ProjectionRunner(store, models, [tenantsProjection('tn', 'tenant', state)], { poisonAttempts: 3, poisonBackoffMs: 20 });
    await runner.start();
    const logs = captureLogs();
    try {
      const [a, b] = [`tenant-a${randomUUID().slice(0, 8)}`, `tenant-b${randomUUID().slice(0, 8)}`];
      await append(a, {});
      await append(b, {});
      // Appended together, so they reach the projection as one batch with the poison in the middle.
      const positions = await Promise.all([append(a, { poison: true }), append(b, {}), append(a, {}), append(b, {})]);
      const poison = positions[0];
      const last = positions.reduce((x, y) => (y > x ? y : x));

      // Every reply waiting on these positions returns, the poison's included: a parked position counts as reached.
      await runner.waitFor(poison, a, 15_000);
      await runner.waitFor(last, b, 15_000);
      expect(await applied('tn')).toEqual([`${a}:0`, `${a}:2`, `${b}:0`, `${b}:1`, `${b}:2`].sort());
      expect(await checkpoint('tn')).toBe(last);
      expect(state.calls).toBe(3 + 1); // once in the failed batch, then 3 attempts on its own

      const parked = await listParked(models, 'tn');
      expect(parked).toHaveLength(1);
      expect(parked[0]).toMatchObject({ projection: 'tn', position: String(poison), stream_id: a, event_type: 'Changed', attempts: 3 });
      expect(parked[0].error).toMatch(/cannot apply/);
      expect(logs.messages('error').filter((m) => /PARKED event/.test(m))).toHaveLength(1);

      // Still failing: 409, stays parked, one more attempt counted.
      await expect(runner.replay(parked[0].id)).rejects.toMatchObject({ code: 'conflict' });
      expect((await listParked(models, 'tn'))[0].attempts).toBe(4);

      // Fixed: applied, and the later event of its stream applied again after it (the row ends current).
      state.fixed = true;
      await expect(runner.replay(parked[0].id)).resolves.toEqual({ id: parked[0].id, projection: 'tn', position: String(poison), reapplied: 1 });
      expect(await applied('tn')).toContain(`${a}:1`);
      expect(await listParked(models, 'tn')).toEqual([]);
      await expect(runner.replay(parked[0].id)).rejects.toMatchObject({ code: 'not_found' });

      // And the projection keeps going.
      const after = await append(b, {});
      await runner.waitFor(after, b, 5_000);
      expect(await checkpoint('tn')).toBe(after);
    } finally {
      logs.restore();
      await runner.stop();
    }
  });

  it('parks during catch-up at start too, and a restart does not park it twice', async () => {
    const state = { fixed: false, calls: 0 };
    const stream = `early-${randomUUID().slice(0, 8)}`;
    await append(stream, {});
    const poison = await append(stream, { poison: true });
    const last = await append(stream, {});
    const logs = captureLogs();
    try {
      const first = new ProjectionRunner(store, models, [tenantsProjection('early', 'early', state)], { poisonAttempts: 2, poisonBackoffMs: 10 });
      await first.start(); // catch-up: start() resolves only once caught up, past the poison
      await first.stop();
      expect(await checkpoint('early')).toBe(last);
      expect(await applied('early')).toEqual([`${stream}:0`, `${stream}:2`]);
      const again = new ProjectionRunner(store, models, [tenantsProjection('early', 'early', state)], { poisonAttempts: 2, poisonBackoffMs: 10 });
      await again.start();
      await again.stop();
      const parked = await listParked(models, 'early');
      expect(parked.map((p) => [p.position, p.attempts])).toEqual([[String(poison), 2]]);
    } finally {
      logs.restore();
    }
  });

  it('reports each projection\'s parked events and lag for the health check', async () => {
    const state = { fixed: false, calls: 0 };
    const runner = new ProjectionRunner(store, models, [tenantsProjection('hl', 'healthy', state)], { poisonAttempts: 1 });
    await runner.start();
    const logs = captureLogs();
    try {
      const stream = `healthy-${randomUUID().slice(0, 8)}`;
      await runner.waitFor(await append(stream, { poison: true }), stream, 5_000);
      await runner.waitFor(await append(stream, {}), stream, 5_000);
      const view = async () => (await projectionsHealth(models, store)).find((p) => p.name === 'hl');
      expect(await view()).toEqual({ name: 'hl', parked_events: 1, lag_seconds: 0 });
    } finally {
      logs.restore();
      await runner.stop();
    }
    // Stopped (its service is down) while events keep coming: the oldest unapplied one ages.
    const stream = `healthy-${randomUUID().slice(0, 8)}`;
    const position = await append(stream, {});
    await models.$executeRawUnsafe(`UPDATE events SET created_at = now() - interval '5 minutes' WHERE position = ${position}`);
    const lagging = (await projectionsHealth(models, store)).find((p) => p.name === 'hl')!;
    expect(lagging.lag_seconds).toBeGreaterThanOrEqual(300);
    expect(lagging.lag_seconds).toBeGreaterThan(LAG_DEGRADED_SECONDS);
  });

  it('never parks because the database is down: it retries until the database is back, then applies everything', async () => {
    const proxy = await cuttableProxy(new URL(bed.url));
    const viaProxy = createReadModels(proxy.url, 2);
    const state = { fixed: false, calls: 0 };
    const runner = new ProjectionRunner(store, viaProxy, [tenantsProjection('outage', 'outage', state)], { poisonAttempts: 2, poisonBackoffMs: 10 });
    await runner.start();
    const logs = captureLogs();
    try {
      const stream = `outage-${randomUUID().slice(0, 8)}`;
      await runner.waitFor(await append(stream, {}), stream, 5_000);

      proxy.cut();
      let last = 0n;
      for (let i = 0; i < 3; i++) last = await append(stream, { i });
      // Longer than the poison retries (2 attempts, 10 ms) take many times over.
      await new Promise((r) => setTimeout(r, 3_000));
      expect(await listParked(models, 'outage')).toEqual([]);
      expect(await applied('outage')).toEqual([`${stream}:0`]);
      expect(logs.messages('error').length).toBeGreaterThan(0);
      // Recognised as the database's failure at once: no event was even retried as a suspect.
      expect(logs.messages().filter((m) => /attempt \d+ of|one at a time/.test(m))).toEqual([]);

      proxy.restore();
      await runner.waitFor(last, stream, 20_000);
      expect(await applied('outage')).toEqual([0, 1, 2, 3].map((r) => `${stream}:${r}`));
      expect(await listParked(models, 'outage')).toEqual([]);
      expect(await checkpoint('outage')).toBe(last);
    } finally {
      logs.restore();
      await runner.stop();
      await closeReadModels(viaProxy);
      await proxy.close();
    }
  });
});
