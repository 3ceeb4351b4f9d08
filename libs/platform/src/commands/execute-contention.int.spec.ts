// Commands under contention on the real PostgreSQL store: one process serialises its writes to a stream,
// two "replicas" (two store instances, each with its own lane and cache) are decided by the expected
// revision; nobody gets an error unless the request really conflicts, and lost races end in 409.
import { conflict, Decider, DomainEvent } from '@spawnpoint/domain';
import { PostgresEventStore } from '@spawnpoint/eventstore';
import { runInCommand } from '@spawnpoint/messaging';
import { createTestDatabase, TestDatabase } from '../../../../test/support/databases';
import { toErrorBody } from './errors';
import { ContentionConflict, execute } from './execute';
import { StateCache } from './state-cache';

type Ready = DomainEvent<'Ready', { player: string; seen: number }>;
type Cmd = { type: 'SetReady'; player: string };
/** A lobby-like stream: each player may become ready once; `seen` is how many were ready before. */
const lobby: Decider<Cmd, Ready, { ready: string[] }> = {
  initialState: { ready: [] },
  decide: (c, s) => {
    if (s.ready.includes(c.player)) throw conflict(`${c.player} is already ready`);
    return [{ type: 'Ready', data: { player: c.player, seen: s.ready.length } }];
  },
  evolve: (s, e) => ({ ready: [...s.ready, e.data.player] }),
};

const players = (n: number, prefix = 'p') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe('execute under contention (PostgreSQL)', () => {
  jest.setTimeout(60_000);
  let db: TestDatabase;
  let a: PostgresEventStore;
  let b: PostgresEventStore;

  beforeAll(async () => {
    db = await createTestDatabase('contention');
    a = new PostgresEventStore({ connectionString: db.url, poolSize: 10 });
    b = new PostgresEventStore({ connectionString: db.url, poolSize: 10 });
    await a.migrate();
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
  });

  async function check(stream: string, expected: string[]): Promise<void> {
    const { events } = await a.readStream(stream);
    expect(events.map((e) => (e.data as { player: string }).player).sort()).toEqual([...expected].sort());
    // Each was decided on the state just before it: `seen` counts 0, 1, 2, … with none repeated.
    expect(events.map((e) => (e.data as { seen: number }).seen)).toEqual(events.map((_, i) => i));
  }

  it('50 concurrent optimistic commands on one stream in one process: 0 errors, none lost or doubled', async () => {
    const cache = new StateCache(a, lobby);
    const results = await Promise.allSettled(players(50).map((p) => cache.execute('lobby-one', { type: 'SetReady', player: p }, {}, { optimistic: true })));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    await check('lobby-one', players(50));
  });

  it('50 concurrent commands through two replicas: 0 errors, every command applied once', async () => {
    const caches = [new StateCache(a, lobby), new StateCache(b, lobby)];
    const results = await Promise.allSettled(players(50).map((p, i) => caches[i % 2].execute('lobby-two', { type: 'SetReady', player: p }, {}, { optimistic: true })));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    await check('lobby-two', players(50));
  });

  it('plain execute (no cache) through two replicas: 0 errors either', async () => {
    const results = await Promise.allSettled(players(40).map((p, i) => execute([a, b][i % 2], lobby, 'lobby-plain', { type: 'SetReady', player: p })));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    await check('lobby-plain', players(40));
  });

  it('a real conflict under contention is a 409 from the decider, decided on the fresh state', async () => {
    const caches = [new StateCache(a, lobby), new StateCache(b, lobby)];
    // Everyone tries to make the same player ready: exactly one wins, the others are refused as such.
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => caches[i % 2].execute('lobby-same', { type: 'SetReady', player: 'x' }, {}, { optimistic: true })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refusals = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => toErrorBody(r.reason));
    expect(refusals).toEqual(Array.from({ length: 19 }, () => ({ error: 'x is already ready', status: 409 })));
  });

  it('appends that keep losing end in a 409 conflict, never an internal error', async () => {
    await execute(a, lobby, 'lobby-stale', { type: 'SetReady', player: 'first' });
    // A state that is always stale: every append loses on the revision.
    const stale = { state: { ready: [] }, revision: -1 };
    const err = await execute(a, lobby, 'lobby-stale', { type: 'SetReady', player: 'late' }, {}, { maxAttempts: 1, known: stale }).catch((e) => e);
    expect(err).toBeInstanceOf(ContentionConflict);
    expect(toErrorBody(err)).toEqual({ error: expect.stringMatching(/changed concurrently .* retry/), status: 409 });
    await check('lobby-stale', ['first']);
  });

  it('records the command id of the current command on each appended event', async () => {
    await runInCommand({ commandId: 'cmd-1', outbound: false }, () => execute(a, lobby, 'lobby-meta', { type: 'SetReady', player: 'p' }));
    expect((await a.readStream('lobby-meta')).events[0].metadata.commandId).toBe('cmd-1');
  });
});
