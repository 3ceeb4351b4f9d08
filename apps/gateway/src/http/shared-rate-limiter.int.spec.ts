// The shared buckets on the real PostgreSQL (migration 0009): the lease function's arithmetic, two gateways'
// limiters on one key, and the lease round trip the hot path avoids.
import { migrateReadModels, PgBucketStore } from '@spawnpoint/read-models';
import { createTestDatabase, TestDatabase } from '../../../../test/support/databases';
import { SharedRateLimiter } from './shared-rate-limiter';

jest.setTimeout(60_000);

describe('shared rate limits on PostgreSQL', () => {
  let db: TestDatabase;
  let stores: PgBucketStore[] = [];
  const store = () => {
    const s = new PgBucketStore(db.url);
    stores.push(s);
    return s;
  };

  beforeAll(async () => {
    db = await createTestDatabase('limits');
    await migrateReadModels(db.url);
  });
  afterEach(async () => {
    await Promise.all(stores.map((s) => s.close()));
    stores = [];
  });
  afterAll(() => db.drop());

  it('a fresh bucket is full; leases take whole tokens; an empty one grants nothing and says how long to wait', async () => {
    const s = store();
    expect(await s.lease('fresh', 10, 4)).toEqual({ granted: 4, remaining: expect.closeTo(6, 1), waitMs: 0 });
    expect((await s.lease('fresh', 10, 100)).granted).toBe(6);
    const empty = await s.lease('fresh', 10, 5);
    expect(empty.granted).toBe(0);
    // 5 tokens at 10/s: about half a second (less the moment since the last lease).
    expect(empty.waitMs).toBeGreaterThan(400);
    expect(empty.waitMs).toBeLessThanOrEqual(500);
    await new Promise((r) => setTimeout(r, 550));
    expect((await s.lease('fresh', 10, 5)).granted).toBe(5);
  });

  it('concurrent leases from two pools never hand out more than the bucket holds', async () => {
    const [a, b] = [store(), store()];
    const grants = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).lease('race', 1000, 50)));
    const total = grants.reduce((n, g) => n + g.granted, 0);
    // Capacity 1000, plus what refills during the burst (well under a second at 1000/s).
    expect(total).toBeGreaterThanOrEqual(1000);
    expect(total).toBeLessThan(1000 + 300);
  });

  it('two gateways sending twice the limit between them are allowed the limit (±5 %)', async () => {
    // Unspent slices at the end (at most ~1.5 slices of 5 % per gateway) are the error: 6 s keeps them small.
    const limit = 100;
    const gateways = [new SharedRateLimiter(store()), new SharedRateLimiter(store())];
    let allowed = 0;
    const started = Date.now();
    const durationMs = 6000;
    // Each gateway gets `limit` requests per second, in 10 ms ticks.
    const ticks = gateways.map(async (g) => {
      for (let tick = 0; Date.now() - started < durationMs; tick++) {
        const takes = await Promise.all(Array.from({ length: limit / 100 }, () => g.take('two-gateways', limit)));
        // one request per gateway per 10 ms tick: 2 × limit per second in all
        allowed += takes.filter((t) => t.allowed).length;
        await new Promise((r) => setTimeout(r, Math.max(0, started + (tick + 1) * 10 - Date.now())));
      }
    });
    await Promise.all(ticks);
    const elapsed = (Date.now() - started) / 1000;
    const expected = limit + limit * elapsed;
    expect(gateways.some((g) => g.alone)).toBe(false);
    expect(allowed / expected).toBeGreaterThan(0.95);
    expect(allowed / expected).toBeLessThan(1.05);
  });

  it('fails open when PostgreSQL cannot be reached: the gateway counts alone and logs it', async () => {
    const down = new PgBucketStore('postgres://postgres@127.0.0.1:1/nowhere', { connectTimeoutMs: 200 });
    stores.push(down);
    const logs: string[] = [];
    const limiter = new SharedRateLimiter(down, { log: (l) => logs.push(l) });
    const takes = [];
    for (let i = 0; i < 12; i++) takes.push(await limiter.take('unreachable', 10));
    expect(limiter.alone).toBe(true);
    expect(takes.slice(0, 10).every((t) => t.allowed)).toBe(true);
    expect(takes[11]).toMatchObject({ allowed: false, limit: 10, remaining: 0 });
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/ECONNREFUSED|connect/);
  });

  it('forgets idle buckets when pruned', async () => {
    const s = store();
    await s.lease('idle', 10, 1);
    await new Promise((r) => setTimeout(r, 30));
    await s.prune(10);
    // Forgotten means full again.
    expect((await s.lease('idle', 10, 10)).granted).toBe(10);
  });
});
