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
});
