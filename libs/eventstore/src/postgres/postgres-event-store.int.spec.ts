import { randomUUID } from 'node:crypto';
import { Client, Pool } from 'pg';
import { categoryOf, RecordedEvent, Subscription } from '../event-store';
import { createTestDatabase, TestDatabase } from '../../../../test/support/databases';
import { describeEventStoreContract } from '../testing/event-store-contract';
import { PostgresCheckpointStore } from './postgres-checkpoint-store';
import { PostgresEventStore } from './postgres-event-store';
import { EVENTS_CHANNEL } from './schema';

describeEventStoreContract('PostgresEventStore', async () => {
  const db = await createTestDatabase('es');
  const store = new PostgresEventStore({ connectionString: db.url });
  await store.migrate();
  return {
    store,
    async cleanup() {
      await store.close();
      await db.drop();
    },
  };
});

describe('PostgresEventStore specifics', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;

  beforeAll(async () => {
    db = await createTestDatabase('es');
    store = new PostgresEventStore({ connectionString: db.url });
    await store.migrate();
  });
  afterAll(async () => {
    await store.close();
    await db.drop();
  });

  it('migrates idempotently, even when several stores migrate at once', async () => {
    const others = [1, 2, 3].map(() => new PostgresEventStore({ connectionString: db.url, poolSize: 1 }));
    try {
      await Promise.all([store.migrate(), ...others.map((s) => s.migrate())]);
      await store.migrate();
    } finally {
      await Promise.all(others.map((s) => s.close()));
    }

    const result = await store.appendToStream('order-1', [{ type: 'Placed', data: {} }], 'no_stream');
    expect(result.nextRevision).toBe(0);
    expect(await store.headPosition()).toBe(result.position);
  });

  it('fails only the append with a reused event id when concurrent appends are sent as one batch', async () => {
    const reused = randomUUID();
    await store.appendToStream('dup-0', [{ id: reused, type: 'First', data: {} }], 'no_stream');

    // Issued together: the first goes alone, the rest share one batch transaction.
    const outcomes = await Promise.allSettled(
      [1, 2, 3, 4].map((i) =>
        store.appendToStream(`dup-${i}`, [{ id: i === 3 ? reused : randomUUID(), type: 'Next', data: {} }], 'no_stream'),
      ),
    );

    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[2] as PromiseRejectedResult).reason).toMatchObject({ code: '23505', constraint: 'events_event_id_key' });
    expect((await store.readStream('dup-3')).revision).toBe(-1);
    const streams = (await store.readAll({ categories: ['dup'] })).map((e) => e.streamId);
    expect(streams.sort()).toEqual(['dup-0', 'dup-1', 'dup-2', 'dup-4']);
  });

  it('decides a batch in order: each append sees the ones before it on its stream; a mismatch fails only itself; positions follow the batch', async () => {
    await store.appendToStream('bat-a', [{ type: 'A0', data: {} }], 'no_stream'); // bat-a at revision 0
    const ev = (type: string) => ({ id: randomUUID(), type, data: { type }, metadata: { by: 'test' } });
    const appends = [
      { stream: 'bat-a', expected: '0', events: [ev('A1'), ev('A2')] }, // → 2
      { stream: 'bat-b', expected: 'no_stream', events: [ev('B0')] }, // → 0
      { stream: 'bat-a', expected: '0', events: [ev('lost')] }, // stale: a is at 2 now
      { stream: 'bat-a', expected: '2', events: [ev('A3')] }, // sees the first append of this batch → 3
      { stream: 'bat-c', expected: 'no_stream', events: [] }, // nothing to write: ok at -1
      { stream: 'bat-b', expected: 'any', events: [ev('B1')] }, // → 1
      { stream: 'bat-b', expected: 'no_stream', events: [ev('lost')] }, // b exists now
      { stream: 'bat-a', expected: '3', events: [] }, // nothing to write: ok, a's last position
    ];
    const client = new Client({ connectionString: db.url });
    await client.connect();
    let results: { ok: boolean; revision: number; position: string | null }[];
    try {
      results = (await client.query('SELECT append_events_batch($1) AS r', [JSON.stringify(appends)])).rows[0].r;
    } finally {
      await client.end();
    }
    expect(results.map((r) => [r.ok, r.revision])).toEqual([[true, 2], [true, 0], [false, 2], [true, 3], [true, -1], [true, 1], [false, 1], [true, 3]]);
    const a = await store.readStream('bat-a');
    const b = await store.readStream('bat-b');
    expect(a.events.map((e) => [e.type, e.revision])).toEqual([['A0', 0], ['A1', 1], ['A2', 2], ['A3', 3]]);
    expect(b.events.map((e) => [e.type, e.revision, e.data, e.metadata])).toEqual([['B0', 0, { type: 'B0' }, { by: 'test' }], ['B1', 1, { type: 'B1' }, { by: 'test' }]]);
    // each append's position is its last event's, in batch order; the empty append on a answers a's last
    const pos = (stream: { events: { type: string; position: bigint }[] }, type: string) => String(stream.events.find((e) => e.type === type)!.position);
    expect(results.map((r) => r.position)).toEqual([pos(a, 'A2'), pos(b, 'B0'), null, pos(a, 'A3'), '0', pos(b, 'B1'), null, pos(a, 'A3')]);
    expect(BigInt(pos(a, 'A1')) < BigInt(pos(a, 'A2')) && BigInt(pos(a, 'A2')) < BigInt(pos(b, 'B0')) && BigInt(pos(b, 'B0')) < BigInt(pos(a, 'A3')) && BigInt(pos(a, 'A3')) < BigInt(pos(b, 'B1'))).toBe(true);
    expect((await store.readAll({ categories: ['bat'] })).map((e) => e.type)).toEqual(['A0', 'A1', 'A2', 'B0', 'A3', 'B1']);
  });

  it('keeps positions in commit order when separate stores (connections) write concurrently', async () => {
    // One store per writer, so appends really are concurrent transactions rather than one process's batches.
    const writers = Array.from({ length: 8 }, () => new PostgresEventStore({ connectionString: db.url, poolSize: 1 }));
    const received: RecordedEvent[] = [];
    const subscription = store.subscribeToAll({ categories: ['race'] }, (e) => {
      received.push(e);
    });
    try {
      const contenders = await Promise.allSettled(
        writers.map((w, i) => w.appendToStream('race-shared', [{ type: 'Claimed', data: { i } }], 'no_stream')),
      );
      await Promise.all(
        writers.map(async (w, i) => {
          for (let n = 0; n < 25; n++) {
            await w.appendToStream(`race-${i}`, [{ type: 'Step', data: { n } }], n === 0 ? 'no_stream' : n - 1);
          }
        }),
      );
      await subscription.caughtUp();

      expect(contenders.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const stored = (await store.readAll({ categories: ['race'] })).map((e) => e.id);
      expect(stored).toHaveLength(1 + 8 * 25);
      expect(received.map((e) => e.id)).toEqual(stored);
      expect(received.every((e, i) => i === 0 || e.position > received[i - 1].position)).toBe(true);
    } finally {
      await subscription.close();
      await Promise.all(writers.map((w) => w.close()));
    }
  });

  const LISTENERS_SQL =
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'";
  const listenerPids = async () => (await store.pool.query<{ pid: number }>(LISTENERS_SQL)).rows.map((r) => r.pid);
  async function waitForListener(): Promise<number[]> {
    const deadline = Date.now() + 5000;
    let pids = await listenerPids();
    while (pids.length === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      pids = await listenerPids();
    }
    return pids;
  }

  it('shares one LISTEN connection between subscriptions and drops it when the last closes', async () => {
    const subscriptions = Array.from({ length: 5 }, () => store.subscribeToAll({}, () => undefined));
    await Promise.all(subscriptions.map((s) => s.caughtUp()));

    expect(await waitForListener()).toHaveLength(1);
    await Promise.all(subscriptions.map((s) => s.close()));
    expect(await listenerPids()).toEqual([]);
  });

  it('listens again after the LISTEN connection is killed, and keeps delivering', async () => {
    const received: string[] = [];
    const subscription = store.subscribeToAll({ categories: ['phoenix'] }, (e) => {
      received.push(e.streamId);
    });
    try {
      const [killed] = await waitForListener();
      await store.pool.query('SELECT pg_terminate_backend($1)', [killed]);
      const deadline = Date.now() + 5000;
      let pids = await listenerPids();
      while ((pids.length === 0 || pids[0] === killed) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
        pids = await listenerPids();
      }

      expect(pids).toHaveLength(1);
      expect(pids[0]).not.toBe(killed);
      await store.appendToStream('phoenix-1', [{ type: 'Risen', data: {} }], 'no_stream');
      await subscription.caughtUp();
      expect(received).toEqual(['phoenix-1']);
    } finally {
      await subscription.close();
    }
  });

  it('wakes a live subscription by notification, well before the 1 s poll', async () => {
    const received: bigint[] = [];
    const subscription = store.subscribeToAll({ categories: ['ticket'] }, (e) => {
      received.push(e.position);
    });
    try {
      await subscription.caughtUp();
      // Let the reader go idle, so only a notification (or the poll) can wake it.
      await new Promise((r) => setTimeout(r, 1100));
      const started = Date.now();
      const { position } = await store.appendToStream('ticket-1', [{ type: 'Opened', data: {} }], 'no_stream');
      while (!received.includes(position) && Date.now() - started < 5000) await new Promise((r) => setImmediate(r));

      expect(received).toEqual([position]);
      expect(Date.now() - started).toBeLessThan(500);
    } finally {
      await subscription.close();
    }
  });
});

describe('PostgresEventStore live tail', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;
  let reads = 0;

  beforeAll(async () => {
    db = await createTestDatabase('es');
    store = new PostgresEventStore({ connectionString: db.url });
    await store.migrate();
    // Counts the event reads (subscriptions' and the tail's), not appends or caughtUp()'s max(position).
    const query = store.pool.query.bind(store.pool) as (...args: unknown[]) => unknown;
    (store.pool as unknown as { query: unknown }).query = (...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].includes('FROM events WHERE position >')) reads++;
      return query(...args);
    };
  });
  afterAll(async () => {
    await store.close();
    await db.drop();
  });

  const eventually = async (check: () => boolean, what: string) => {
    const deadline = Date.now() + 10000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  const ids = (events: RecordedEvent[]) => events.map((e) => e.id);

  it('gives subscriptions with different filters exactly their events in order, with one read per wake-up', async () => {
    const cats = ['alpha', 'beta', 'gamma', 'delta'];
    const filters = [['alpha'], ['beta'], ['gamma', 'delta'], ['alpha', 'gamma'], ['delta'], ['beta', 'alpha']];
    const received = filters.map(() => [] as RecordedEvent[]);
    const subscriptions: Subscription[] = filters.map((categories, i) =>
      store.subscribeToAll({ categories }, (e) => {
        received[i].push(e);
      }),
    );
    const notifications = new Client({ connectionString: db.url });
    notifications.on('error', () => undefined); // ended below; an error shows as missing notifications
    let notified = 0;
    notifications.on('notification', () => notified++);
    try {
      await Promise.all(subscriptions.map((s) => s.caughtUp()));
      await new Promise((r) => setTimeout(r, 50)); // let the last joins settle on the tail
      await notifications.connect();
      await notifications.query(`LISTEN ${EVENTS_CHANNEL}`);
      reads = 0;

      const writers = 8;
      const perWriter = 30;
      await Promise.all(
        Array.from({ length: writers }, async (_, w) => {
          for (let n = 0; n < perWriter; n++) {
            await store.appendToStream(`${cats[(w + n) % cats.length]}-${w}-${n}`, [{ type: 'E', data: { n } }], 'no_stream');
          }
        }),
      );
      const all = await store.readAll({ categories: cats });
      expect(all).toHaveLength(writers * perWriter);
      const expected = filters.map((f) => all.filter((e) => f.includes(categoryOf(e.streamId))));
      await eventually(() => received.every((r, i) => r.length >= expected[i].length), 'every subscription');
      // Measured before caughtUp(), which wakes the tail itself; the poll may add one read.
      const burstReads = reads;
      await eventually(() => notified >= 1, 'notifications');

      expect(received.map(ids)).toEqual(expected.map(ids));
      expect(burstReads).toBeLessThanOrEqual(notified + 2);
      expect(burstReads).toBeLessThan(writers * perWriter);
    } finally {
      await notifications.end();
      await Promise.all(subscriptions.map((s) => s.close()));
    }
  });

  it('lets a subscription catching up from the start during a burst join the tail without gap or duplicate', async () => {
    const live: RecordedEvent[] = [];
    const early = store.subscribeToAll({ categories: ['join'] }, (e) => {
      live.push(e);
    });
    const late: RecordedEvent[] = [];
    let lateSubscription: Subscription | undefined;
    try {
      await early.caughtUp();
      // A backlog of more than a page, so the late one pages on its own before joining.
      await store.appendToStream('join-backlog', Array.from({ length: 1200 }, (_, n) => ({ type: 'E', data: { n } })), 'no_stream');
      await Promise.all(
        Array.from({ length: 6 }, async (_, w) => {
          for (let n = 0; n < 20; n++) {
            if (w === 0 && n === 5) {
              lateSubscription = store.subscribeToAll({ categories: ['join'] }, (e) => {
                late.push(e);
              });
            }
            await store.appendToStream(`join-${w}`, [{ type: 'E', data: { n } }], n === 0 ? 'no_stream' : n - 1);
          }
        }),
      );
      await Promise.all([early.caughtUp(), lateSubscription!.caughtUp()]);

      const stored = ids(await store.readAll({ categories: ['join'] }));
      expect(stored).toHaveLength(1200 + 6 * 20);
      expect(ids(live)).toEqual(stored);
      expect(ids(late)).toEqual(stored);
    } finally {
      await Promise.all([early.close(), lateSubscription?.close()]);
    }
  });

  it('does not let a stalled subscription hold up the others; it falls back to reading on its own', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow: RecordedEvent[] = [];
    const fast: RecordedEvent[] = [];
    const slowSubscription = store.subscribeToAll({ categories: ['lag'] }, async (e) => {
      await gate;
      slow.push(e);
    });
    const fastSubscription = store.subscribeToAll({ categories: ['lag'] }, (e) => {
      fast.push(e);
    });
    try {
      await fastSubscription.caughtUp();
      await new Promise((r) => setTimeout(r, 50)); // both on the tail
      // More than the tail queues for one subscription, in several wake-ups.
      for (let b = 0; b < 12; b++) {
        await store.appendToStream(`lag-${b}`, Array.from({ length: 100 }, (_, n) => ({ type: 'E', data: { n } })), 'no_stream');
      }
      await fastSubscription.caughtUp();
      expect(fast).toHaveLength(1200);
      expect(slow).toHaveLength(0);

      release();
      await slowSubscription.caughtUp();
      expect(ids(slow)).toEqual(ids(fast));
    } finally {
      release();
      await Promise.all([slowSubscription.close(), fastSubscription.close()]);
    }
  });
});

describe('PostgresCheckpointStore', () => {
  let db: TestDatabase;
  let pool: Pool;

  beforeAll(async () => {
    db = await createTestDatabase('cp');
    pool = new Pool({ connectionString: db.url });
    // As the stores do: an idle connection that PostgreSQL ends (57P01) must not crash the suite
    // (a CI run once failed here on an unhandled 'error' from this pool).
    pool.on('error', () => undefined);
  });
  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  it('migrates concurrently, loads 0n for an unknown name, and saves, overwrites and round-trips large positions', async () => {
    const checkpoints = new PostgresCheckpointStore(pool);
    await Promise.all([checkpoints.migrate(), checkpoints.migrate(), new PostgresCheckpointStore(pool).migrate()]);

    expect(await checkpoints.load('projection-a')).toBe(0n);
    await checkpoints.save('projection-a', 42n);
    await checkpoints.save('projection-b', 7n);
    expect(await checkpoints.load('projection-a')).toBe(42n);
    await checkpoints.save('projection-a', 9_007_199_254_740_993n);
    expect(await checkpoints.load('projection-a')).toBe(9_007_199_254_740_993n);
    expect(await checkpoints.load('projection-b')).toBe(7n);
  });

  it('works from a connection string, and close() leaves a shared pool open', async () => {
    const owned = new PostgresCheckpointStore(db.url);
    await owned.migrate();
    await owned.save('relay', 5n);
    await owned.close();

    const shared = new PostgresCheckpointStore(pool);
    await shared.close();
    expect(await shared.load('relay')).toBe(5n);
  });
});
