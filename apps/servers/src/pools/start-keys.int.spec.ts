// Start keys in PostgreSQL (ADR-0007, migration 0020): two servers replicas, each with its own pool, take the
// same key; one is the start, the other waits until the store shows its server and answers it. A failed
// start or one whose lease ran out hands its key to the next arrival; the sweep removes old keys.
import { closeReadModels, createReadModels, migrateReadModels, ReadModels } from '@spawnpoint/read-models';
import { createTestDatabase, TestDatabase } from '../../../../test/support/databases';
import { StartKeys } from './start-keys';

jest.setTimeout(30_000);

describe('start keys shared by two servers replicas', () => {
  let db: TestDatabase;
  let rmA: ReadModels;
  let rmB: ReadModels;
  let a: StartKeys;
  let b: StartKeys;

  beforeAll(async () => {
    db = await createTestDatabase('startkeys');
    await migrateReadModels(db.url);
    rmA = createReadModels(db.url, 2);
    rmB = createReadModels(db.url, 2);
    a = new StartKeys(rmA);
    b = new StartKeys(rmB);
  });
  afterAll(async () => {
    await closeReadModels(rmA);
    await closeReadModels(rmB);
    await db.drop();
  });

  const SERVER = 'a-server';

  it('of 20 concurrent takes of one key at two replicas, exactly one is the start; the same key in another project is another start', async () => {
    const takes = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).take('p1', 'k-race')));
    expect(takes.filter((t) => t === 'first')).toHaveLength(1);
    expect(takes.filter((t) => t === 'busy')).toHaveLength(19);
    expect(await b.take('p2', 'k-race')).toBe('first');
  });

  it('a second arrival waits until the store shows the first one\'s server and answers it; without one in time it answers 503', async () => {
    expect(await a.begin('p1', 'k-wait', async () => null)).toBeNull();
    let shown: string | null = null;
    setTimeout(() => { shown = SERVER; }, 300);
    const looks: number[] = [];
    expect(await b.begin('p1', 'k-wait', async () => { looks.push(Date.now()); return shown; }, 5_000)).toBe(SERVER);
    expect(looks.length).toBeGreaterThan(1);
    await expect(b.begin('p1', 'k-wait', async () => null, 200)).rejects.toMatchObject({ body: { status: 503 } });
  });

  it('a failed start, or one whose lease ran out, leaves its key to the next arrival, which first looks for what it did', async () => {
    expect(await a.take('p1', 'k-fail')).toBe('first');
    await a.failed('p1', 'k-fail');
    expect(await b.take('p1', 'k-fail')).toBe('again');
    expect(await a.take('p1', 'k-fail')).toBe('busy');
    expect(await a.begin('p1', 'k-fail2', async () => null)).toBeNull();
    await a.failed('p1', 'k-fail2');
    expect(await b.begin('p1', 'k-fail2', async () => SERVER, 0)).toBe(SERVER);

    expect(await a.take('p1', 'k-dead')).toBe('first');
    expect(await b.take('p1', 'k-dead', 60_000)).toBe('busy');
    await new Promise((r) => setTimeout(r, 50));
    expect(await b.take('p1', 'k-dead', 10)).toBe('again');
  });

  it('the sweep removes keys older than any retry of their start', async () => {
    await a.take('p1', 'k-old');
    await rmA.$executeRaw`UPDATE start_keys SET taken_at = now() - interval '1 hour' WHERE key = 'k-old'`;
    expect(await b.sweep(15 * 60_000)).toBe(1);
    expect(await a.take('p1', 'k-old')).toBe('first');
  });
});
