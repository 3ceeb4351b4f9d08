// StateCache against the real PostgreSQL event store: loads stay exact when other writers append.
import { Decider, DomainEvent } from '@spawnpoint/domain';
import { PostgresEventStore } from '@spawnpoint/eventstore';
import { createTestDatabase, TestDatabase } from '../../../../test/support/databases';
import { StateCache } from './state-cache';

type Added = DomainEvent<'Added', { n: number }>;
const counter: Decider<never, Added, number> = { initialState: 0, decide: () => [], evolve: (s, e) => s + e.data.n };

describe('StateCache', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;
  let other: PostgresEventStore;

  beforeAll(async () => {
    db = await createTestDatabase('state_cache');
    store = new PostgresEventStore({ connectionString: db.url });
    other = new PostgresEventStore({ connectionString: db.url });
    await store.migrate();
  });
  afterAll(async () => {
    await store?.close();
    await other?.close();
    await db?.drop();
  });

  it('folds the whole stream once, then only the events appended since (by anyone)', async () => {
    const cache = new StateCache(store, counter);
    await store.appendToStream('count-1', [{ type: 'Added', data: { n: 1 } }, { type: 'Added', data: { n: 2 } }], 'no_stream');
    expect(await cache.load('count-1')).toEqual({ state: 3, revision: 1 });
    await other.appendToStream('count-1', [{ type: 'Added', data: { n: 10 } }], 1);
    expect(await cache.load('count-1')).toEqual({ state: 13, revision: 2 });
    expect(await cache.load('count-1')).toEqual({ state: 13, revision: 2 });
  });

  it('starts from the initial state for a stream that does not exist', async () => {
    expect(await new StateCache(store, counter).load('count-none')).toEqual({ state: 0, revision: -1 });
  });

  it('never lets an older revision replace a newer one', async () => {
    const cache = new StateCache(store, counter);
    await store.appendToStream('count-2', [{ type: 'Added', data: { n: 5 } }], 'no_stream');
    cache.remember('count-2', { state: 5, revision: 0 });
    cache.remember('count-2', { state: 0, revision: -1 });
    expect(await cache.load('count-2')).toEqual({ state: 5, revision: 0 });
  });

  it('answers a load from the cache when it has a revision the caller has seen, and reads when it has not', async () => {
    const cache = new StateCache(store, counter);
    await store.appendToStream('count-3', [{ type: 'Added', data: { n: 1 } }], 'no_stream');
    expect(await cache.load('count-3')).toEqual({ state: 1, revision: 0 });
    await other.appendToStream('count-3', [{ type: 'Added', data: { n: 2 } }], 0);
    // Revision 0 is cached: no read, so the other writer's event is not seen yet.
    expect(await cache.load('count-3', 0)).toEqual({ state: 1, revision: 0 });
    // Revision 1 is not: the tail is read.
    expect(await cache.load('count-3', 1)).toEqual({ state: 3, revision: 1 });
  });

  describe('applied: whether a command id is recorded on the stream', () => {
    type Set_ = DomainEvent<'Set', { v: number }>;
    const register: Decider<{ v: number }, Set_, number> = { initialState: 0, decide: (c) => [{ type: 'Set', data: { v: c.v } }], evolve: (_, e) => e.data.v };

    it('knows the ids of its own appends and of other writers\' (read from the tail, not the whole stream)', async () => {
      const cache = new StateCache(store, register);
      await cache.execute('reg-1', { v: 1 }, { commandId: 'mine-1' });
      await other.appendToStream('reg-1', [{ type: 'Set', data: { v: 2 }, metadata: { commandId: 'theirs-1' } }], 0);
      const reads = jest.spyOn(store, 'readStream');
      try {
        expect(await cache.applied('reg-1', 'mine-1')).toEqual({ applied: true, loaded: { state: 2, revision: 1 } });
        expect((await cache.applied('reg-1', 'theirs-1')).applied).toBe(true);
        expect((await cache.applied('reg-1', 'never')).applied).toBe(false);
        // every check read the tail only (from the revision after the cached one)
        expect(reads.mock.calls.map((c) => c[1])).toEqual([1, 2, 2]);
      } finally {
        reads.mockRestore();
      }
    });

    it('a new cache reads the whole stream once, then the tail', async () => {
      await store.appendToStream('reg-2', [{ type: 'Set', data: { v: 7 }, metadata: { commandId: 'a' } }, { type: 'Set', data: { v: 8 } }], 'no_stream');
      const cache = new StateCache(store, register);
      expect(await cache.applied('reg-2', 'a')).toEqual({ applied: true, loaded: { state: 8, revision: 1 } });
      expect((await cache.applied('reg-2', 'b')).applied).toBe(false);
      await cache.execute('reg-2', { v: 9 }, { commandId: 'b' }, { optimistic: true });
      expect((await cache.applied('reg-2', 'b')).applied).toBe(true);
    });

    it('stays exact past the ids it keeps, and after a state remembered from outside', async () => {
      const cache = new StateCache(store, register);
      const many = Array.from({ length: 300 }, (_, i) => ({ type: 'Set', data: { v: i }, metadata: { commandId: `c${i}` } }));
      await store.appendToStream('reg-3', many, 'no_stream');
      expect((await cache.applied('reg-3', 'c0')).applied).toBe(true);
      expect((await cache.applied('reg-3', 'c299')).applied).toBe(true);
      expect((await cache.applied('reg-3', 'c300')).applied).toBe(false);

      await store.appendToStream('reg-4', [{ type: 'Set', data: { v: 1 }, metadata: { commandId: 'x' } }], 'no_stream');
      cache.remember('reg-4', { state: 1, revision: 0 }); // ids unknown
      expect((await cache.applied('reg-4', 'x')).applied).toBe(true);
      expect((await cache.applied('reg-4', 'y')).applied).toBe(false);
    });

    describe('execute once per command id', () => {
      const count = async (stream: string, id: string) => (await store.readStream(stream)).events.filter((e) => e.metadata.commandId === id).length;

      it('applies a key once, however often it is sent, from this cache or a stale one', async () => {
        const cache = new StateCache(store, register);
        const first = await cache.execute('once-1', { v: 1 }, { commandId: 'k1' }, { optimistic: true, once: 'k1' });
        expect(first.repeated).toBeUndefined();
        const again = await cache.execute('once-1', { v: 2 }, { commandId: 'k1' }, { optimistic: true, once: 'k1' });
        expect(again).toMatchObject({ repeated: true, events: [], state: 1, revision: 0 });
        // Another writer applied k2 after this cache last looked: the stale append fails, the tail read finds k2.
        await other.appendToStream('once-1', [{ type: 'Set', data: { v: 5 }, metadata: { commandId: 'k2' } }], 0);
        expect(await cache.execute('once-1', { v: 6 }, { commandId: 'k2' }, { optimistic: true, once: 'k2' })).toMatchObject({ repeated: true, state: 5, revision: 1 });
        // A fresh cache (another replica) finds both.
        const fresh = new StateCache(store, register);
        expect((await fresh.execute('once-1', { v: 7 }, { commandId: 'k1' }, { optimistic: true, once: 'k1' })).repeated).toBe(true);
        expect(await count('once-1', 'k1')).toBe(1);
        expect(await count('once-1', 'k2')).toBe(1);
      });

      it('sent side by side from two caches, a key lands once', async () => {
        const a = new StateCache(store, register);
        const b = new StateCache(other, register);
        await a.execute('once-2', { v: 0 }, { commandId: 'seed' });
        await b.load('once-2');
        const results = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).execute('once-2', { v: i }, { commandId: 'same' }, { optimistic: true, once: 'same' })));
        expect(results.filter((r) => !r.repeated)).toHaveLength(1);
        expect(await count('once-2', 'same')).toBe(1);
      });

      it('past the ids a cache keeps, the stream is read to tell', async () => {
        const cache = new StateCache(store, register);
        const many = Array.from({ length: 300 }, (_, i) => ({ type: 'Set', data: { v: i }, metadata: { commandId: `m${i}` } }));
        await store.appendToStream('once-3', many, 'no_stream');
        await cache.load('once-3');
        expect((await cache.execute('once-3', { v: 1 }, { commandId: 'm3' }, { optimistic: true, once: 'm3' })).repeated).toBe(true);
        expect((await cache.execute('once-3', { v: 1 }, { commandId: 'new' }, { optimistic: true, once: 'new' })).repeated).toBeUndefined();
        expect(await count('once-3', 'm3')).toBe(1);
      });
    });
  });
});
