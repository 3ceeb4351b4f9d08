// The command loop on the real PostgreSQL store: concurrent commands on one stream are all decided
// on the latest state (none lost, none duplicated), and a refusal appends nothing.
import { Decider, DomainEvent, invalid } from '@spawnpoint/domain';
import { PostgresEventStore } from '@spawnpoint/eventstore';
import { createTestDatabase, TestDatabase } from '../../../../test/support/databases';
import { execute, load } from './execute';

type Added = DomainEvent<'Added', { n: number; total: number }>;
type Cmd = { type: 'Add'; n: number };
const counter: Decider<Cmd, Added, { total: number }> = {
  initialState: { total: 0 },
  decide: (c, s) => {
    if (c.n <= 0) throw invalid('n must be positive', ['body', 'n']);
    return [{ type: 'Added', data: { n: c.n, total: s.total + c.n } }];
  },
  evolve: (s, e) => ({ total: s.total + e.data.n }),
};

describe('execute (read → decide → append with retry)', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;

  beforeAll(async () => {
    db = await createTestDatabase('exec');
    store = new PostgresEventStore({ connectionString: db.url, poolSize: 20 });
    await store.migrate();
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it('decides 30 concurrent commands on one stream each on the latest state', async () => {
    await Promise.all(Array.from({ length: 30 }, () => execute(store, counter, 'counter-a', { type: 'Add', n: 1 }, {}, { maxAttempts: 100 })));
    const { events, revision } = await store.readStream('counter-a');
    expect(revision).toBe(29);
    // Every event saw the total before it: the running totals are exactly 1..30, none repeated.
    expect(events.map((e) => (e.data as { total: number }).total)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect((await load(store, counter, 'counter-a')).state.total).toBe(30);
  });

  it('appends nothing when the decider refuses', async () => {
    await expect(execute(store, counter, 'counter-b', { type: 'Add', n: 0 })).rejects.toThrow('n must be positive');
    expect((await store.readStream('counter-b')).revision).toBe(-1);
  });

  it('returns the position of its append', async () => {
    const r = await execute(store, counter, 'counter-c', { type: 'Add', n: 5 }, { projectId: 'p1' });
    expect(r.position).toBe(await store.headPosition());
    const [e] = (await store.readStream('counter-c')).events;
    expect(e.metadata.projectId).toBe('p1');
  });
});
