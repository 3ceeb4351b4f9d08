// Aggregate.handle, the one write path, against the real PostgreSQL event store: given a stream, when a
// command is handled (by this process, another replica, or twice), then the events appended once, at the
// expected revision, with the state decided on and the answer after the read model when asked.
import { Decider, DomainError, DomainEvent } from '@spawnpoint/domain';
import { PostgresEventStore } from '@spawnpoint/eventstore';
import { createTestDatabase, TestDatabase } from '../../../../test/support/databases';
import { Aggregate, ReadYourWrites } from './aggregate';

type Deposited = DomainEvent<'Deposited', { amount: number }>;
type Withdrawn = DomainEvent<'Withdrawn', { amount: number }>;
type Command = { type: 'Deposit' | 'Withdraw'; amount: number };
/** An account: a withdrawal beyond the balance is refused; a zero deposit decides nothing. */
const account: Decider<Command, Deposited | Withdrawn, number> = {
  initialState: 0,
  decide: (c, balance) => {
    if (c.type === 'Withdraw' && c.amount > balance) throw new DomainError('conflict', `balance ${balance} is below ${c.amount}`);
    if (c.amount === 0) return [];
    return [c.type === 'Deposit' ? { type: 'Deposited', data: { amount: c.amount } } : { type: 'Withdrawn', data: { amount: c.amount } }];
  },
  evolve: (balance, e) => (e.type === 'Deposited' ? balance + e.data.amount : balance - e.data.amount),
};
const streamOf = (id: string) => `account-${id}`;

describe('Aggregate.handle', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;
  let other: PostgresEventStore;

  beforeAll(async () => {
    db = await createTestDatabase('aggregate');
    store = new PostgresEventStore({ connectionString: db.url });
    other = new PostgresEventStore({ connectionString: db.url });
    await store.migrate();
  });
  afterAll(async () => {
    await store?.close();
    await other?.close();
    await db?.drop();
  });

  const events = async (id: string) => (await store.readStream(streamOf(id))).events;

  it('given no stream, when a command is handled, then its events start the stream, with the state before and after and the project on their metadata', async () => {
    const accounts = new Aggregate(store, account, streamOf);
    const handled = await accounts.handle('a1', { type: 'Deposit', amount: 5 }, { projectId: 'p1' });
    expect(handled).toMatchObject({ before: 0, state: 5, revision: 0, repeated: false, events: [{ type: 'Deposited', data: { amount: 5 } }] });
    expect((await events('a1')).map((e) => [e.type, e.metadata.projectId])).toEqual([['Deposited', 'p1']]);
  });

  it('beforeAppend runs after the decision and before its append, and not for a refusal nor for a decision of nothing', async () => {
    const accounts = new Aggregate(store, account, streamOf);
    const seen: number[] = [];
    const beforeAppend = async () => { seen.push((await events('a9')).length); };
    await accounts.handle('a9', { type: 'Deposit', amount: 5 }, { beforeAppend });
    await expect(accounts.handle('a9', { type: 'Withdraw', amount: 50 }, { beforeAppend })).rejects.toThrow(/below 50/);
    await accounts.handle('a9', { type: 'Deposit', amount: 0 }, { beforeAppend });
    await accounts.handle('a9', { type: 'Withdraw', amount: 2 }, { beforeAppend });
    // Each time, the stream as it was before the events it preceded.
    expect(seen).toEqual([0, 1]);
    // What it throws is the command's answer, and nothing is appended.
    await expect(accounts.handle('a9', { type: 'Deposit', amount: 1 }, { beforeAppend: () => Promise.reject(new Error('owner not recorded')) })).rejects.toThrow(/owner not recorded/);
    expect((await events('a9')).length).toBe(2);
  });

  it('given another replica appended since this one last looked, the command is decided again on the stream\'s head: nothing lost', async () => {
    const mine = new Aggregate(store, account, streamOf);
    const theirs = new Aggregate(other, account, streamOf);
    await mine.handle('a2', { type: 'Deposit', amount: 10 });
    await theirs.handle('a2', { type: 'Withdraw', amount: 4 });
    // This replica's cached balance (10) is stale: the append at its revision fails, the tail is read, 6 - 6 = 0.
    const handled = await mine.handle('a2', { type: 'Withdraw', amount: 6 });
    expect(handled).toMatchObject({ before: 6, state: 0, revision: 2 });
    // A refusal decided on a stale cached state is decided again on a read before it stands.
    await theirs.handle('a2', { type: 'Deposit', amount: 3 });
    expect((await mine.handle('a2', { type: 'Withdraw', amount: 3 })).state).toBe(0);
    await expect(mine.handle('a2', { type: 'Withdraw', amount: 1 })).rejects.toThrow('balance 0 is below 1');
    expect((await events('a2')).map((e) => e.type)).toEqual(['Deposited', 'Withdrawn', 'Withdrawn', 'Deposited', 'Withdrawn']);
  });

  it('given a key, a command sent again (here or by another replica, or side by side) is applied once and answered as repeated', async () => {
    const a = new Aggregate(store, account, streamOf);
    const b = new Aggregate(other, account, streamOf);
    expect((await a.handle('a3', { type: 'Deposit', amount: 1 }, { key: 'k1' })).repeated).toBe(false);
    expect(await a.handle('a3', { type: 'Deposit', amount: 1 }, { key: 'k1' })).toMatchObject({ repeated: true, events: [], state: 1 });
    expect((await b.handle('a3', { type: 'Deposit', amount: 1 }, { key: 'k1' })).repeated).toBe(true);
    const side = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).handle('a3', { type: 'Deposit', amount: 2 }, { key: 'k2' })));
    expect(side.filter((h) => !h.repeated)).toHaveLength(1);
    expect((await events('a3')).map((e) => [e.data.amount, e.metadata.commandId])).toEqual([[1, 'k1'], [2, 'k2']]);
  });

  it('given a command that decides nothing, nothing is appended and the state stands', async () => {
    const accounts = new Aggregate(store, account, streamOf);
    await accounts.handle('a4', { type: 'Deposit', amount: 2 });
    expect(await accounts.handle('a4', { type: 'Deposit', amount: 0 })).toMatchObject({ events: [], position: null, state: 2, revision: 0 });
    expect(await events('a4')).toHaveLength(1);
  });

  it('with await readModel, answers once the read model has the appended position; without, it does not ask', async () => {
    const asked: [bigint | null, string][] = [];
    let release!: () => void;
    const readModel: ReadYourWrites = { waitFor: (position, streamId) => { asked.push([position, streamId]); return new Promise<void>((r) => { release = r; }); } };
    const accounts = new Aggregate(store, account, streamOf, readModel);
    await accounts.handle('a5', { type: 'Deposit', amount: 1 });
    expect(asked).toEqual([]);
    let answered = false;
    const pending = accounts.handle('a5', { type: 'Deposit', amount: 2 }, { await: 'readModel' }).then((h) => { answered = true; return h; });
    while (asked.length === 0) await new Promise((r) => setTimeout(r, 5));
    expect(answered).toBe(false);
    release();
    const handled = await pending;
    expect(asked).toEqual([[handled.position, 'account-a5']]);
    expect(handled.position).not.toBeNull();
  });

  it('refuses await readModel when the aggregate has no read model (a programming error, not a silent skip)', async () => {
    await expect(new Aggregate(store, account, streamOf).handle('a6', { type: 'Deposit', amount: 1 }, { await: 'readModel' })).rejects.toThrow(/needs the service's read model/);
    expect(await events('a6')).toEqual([]);
  });
});
