import type { BucketStore, Lease } from '@spawnpoint/read-models';
import { SharedRateLimiter } from './shared-rate-limiter';

/** The shared bucket as rate_limit_lease() keeps it (migration 0009), on the test's clock; leases answer when the test says. */
class MemoryStore implements BucketStore {
  readonly buckets = new Map<string, { tokens: number; at: number }>();
  leases = 0;
  manual = false;
  failing: Error | null = null;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly now: () => number) {}

  lease(key: string, limit: number, want: number): Promise<Lease> {
    this.leases++;
    const answer = (): Lease => {
      if (this.failing) throw this.failing;
      const t = this.now();
      const b = this.buckets.get(key) ?? { tokens: limit, at: t };
      const tokens = Math.min(limit, b.tokens + ((t - b.at) / 1000) * limit);
      const granted = Math.max(0, Math.min(want, Math.floor(tokens)));
      this.buckets.set(key, { tokens: tokens - granted, at: t });
      return { granted, remaining: tokens - granted, waitMs: granted >= 1 ? 0 : ((Math.min(want, limit) - tokens) / limit) * 1000 };
    };
    if (!this.manual) return Promise.resolve().then(answer);
    return new Promise((resolve, reject) => this.waiting.push(() => { try { resolve(answer()); } catch (e) { reject(e as Error); } }));
  }

  /** Answers every lease asked so far. */
  answer(): void {
    for (const w of this.waiting.splice(0)) w();
  }

  async prune(): Promise<void> {}
  async close(): Promise<void> {}
}

const flush = () => new Promise((r) => setImmediate(r));

describe('SharedRateLimiter: gateways spend leased slices of one shared bucket', () => {
  let now: number;
  let store: MemoryStore;
  const logs: string[] = [];
  const limiter = (o: { timeoutMs?: number } = {}) => new SharedRateLimiter(store, { now: () => now, log: (l) => logs.push(l), ...o });

  beforeEach(() => {
    now = 1_000_000;
    store = new MemoryStore(() => now);
    logs.length = 0;
  });

  it('leases a slice of 5% of the limit (at least one token)', () => {
    expect(SharedRateLimiter.sliceSize(100)).toBe(5);
    expect(SharedRateLimiter.sliceSize(10)).toBe(1);
    expect(SharedRateLimiter.sliceSize(100_000)).toBe(5000);
  });

  it('never reports more than limit - 1 remaining after an allowed request, though slice and refilled bucket add up past it', async () => {
    const rl = limiter();
    const remaining: number[] = [];
    // Slices leased and spent at the limit's pace and then after pauses: the bucket refills while a slice's tokens are held.
    for (let i = 0; i < 200; i++) {
      const take = await rl.take('k', 50);
      if (take.allowed) remaining.push(take.remaining);
      now += i % 20 === 0 ? 900 : 5;
      await flush();
    }
    expect(remaining.length).toBeGreaterThan(100);
    expect(Math.max(...remaining)).toBeLessThanOrEqual(49);
  });

  it('given a fresh key, the first request waits for one lease; the next ones are answered from the slice', async () => {
    const rl = limiter();
    const first = await rl.take('k', 100);
    expect(first).toMatchObject({ allowed: true, limit: 100 });
    expect(store.leases).toBe(1);
    // 4 tokens left of the slice of 5: answered synchronously, no store call until half the slice is spent.
    const second = rl.take('k', 100);
    expect(second).not.toBeInstanceOf(Promise);
    expect(second).toMatchObject({ allowed: true, limit: 100, remaining: 3 + 95 });
  });

  it('leases the next slice in the background before the current one runs out', async () => {
    const rl = limiter();
    await rl.take('k', 100);
    let waited = 0;
    for (let i = 0; i < 50; i++) {
      const t = rl.take('k', 100);
      if (t instanceof Promise) waited++;
      expect((await t).allowed).toBe(true);
      await flush();
    }
    expect(waited).toBe(0);
    expect(store.leases).toBeGreaterThanOrEqual(10);
  });

  it('two gateways on one shared bucket allow the limit together, not twice it', async () => {
    const a = limiter();
    const b = limiter();
    let allowed = 0;
    // 10 s of 2 × 100 requests per second for a limit of 100/s, 1 ms apart on each gateway.
    for (let ms = 0; ms < 10_000; ms += 5) {
      now += 5;
      for (const g of [a, b]) if ((await g.take('k', 100)).allowed) allowed++;
    }
    // The bucket's capacity (100) plus 100 per second, less at most the unspent slices.
    expect(allowed).toBeLessThanOrEqual(100 + 100 * 10);
    expect(allowed).toBeGreaterThanOrEqual(0.95 * (100 + 100 * 10));
  });

  it('when the shared bucket is empty, refuses with Retry-After and asks the store again only once it has refilled', async () => {
    const rl = limiter();
    for (let i = 0; i < 10; i++) expect((await rl.take('k', 10)).allowed).toBe(true);
    const refused = await rl.take('k', 10);
    expect(refused).toMatchObject({ allowed: false, limit: 10, remaining: 0, retryAfterSeconds: 1 });
    const leases = store.leases;
    for (let i = 0; i < 100; i++) expect((await rl.take('k', 10)).allowed).toBe(false);
    expect(store.leases).toBe(leases);
    now += 100;
    expect((await rl.take('k', 10)).allowed).toBe(true);
  });

  it('concurrent requests on a spent slice share one lease', async () => {
    store.manual = true;
    const rl = limiter();
    const takes = [rl.take('k', 100), rl.take('k', 100), rl.take('k', 100)];
    await flush();
    expect(store.leases).toBe(1);
    store.answer();
    await flush();
    store.answer();
    expect((await Promise.all(takes)).map((t) => t.allowed)).toEqual([true, true, true]);
  });

  it('a burst larger than a slice is served from the shared bucket in a few leases, not refused', async () => {
    const [a, b] = [limiter(), limiter()];
    const takes = await Promise.all(Array.from({ length: 160 }, (_, i) => (i % 2 ? a : b).take('burst', 100)));
    // Never more than the bucket's 100; at most a few tokens sit leased on a gateway for its next requests.
    const allowed = takes.filter((t) => t.allowed).length;
    expect(allowed).toBeLessThanOrEqual(100);
    expect(allowed).toBeGreaterThanOrEqual(95);
    expect(takes.filter((t) => !t.allowed).every((t) => t.retryAfterSeconds >= 1)).toBe(true);
    expect(store.leases).toBeLessThan(12);
  });

  it('drops the tokens leased under a limit that an operator changed', async () => {
    const rl = limiter();
    await rl.take('k', 100); // a slice of 5 under 100/s: 4 left
    let allowed = 0;
    for (let i = 0; i < 12; i++) if ((await rl.take('k', 3)).allowed) allowed++;
    // Only the shared bucket's 3 (clamped to the new capacity), none of the old slice's 4.
    expect(allowed).toBe(3);
  });

  it('drops leased tokens left unspent for a second (an old slice never adds to a later burst)', async () => {
    const rl = limiter();
    await rl.take('k', 100);
    now += 1500;
    const leases = store.leases;
    await rl.take('k', 100);
    expect(store.leases).toBe(leases + 1);
  });

  it('fails open: a store that fails or does not answer makes the gateway count alone, and says so once', async () => {
    store.failing = new Error('connect ECONNREFUSED 127.0.0.1:5432');
    const rl = limiter();
    for (let i = 0; i < 10; i++) expect((await rl.take('k', 10)).allowed).toBe(true);
    expect((await rl.take('k', 10))).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    expect(rl.alone).toBe(true);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/ECONNREFUSED.*counts alone/);
    // After the fallback window the store is asked again.
    store.failing = null;
    now += 5000;
    expect((await rl.take('other', 10)).allowed).toBe(true);
    expect(rl.alone).toBe(false);
  });

  it('a lease slower than the timeout counts as a failed store', async () => {
    store.manual = true;
    const rl = limiter({ timeoutMs: 20 });
    const take = await rl.take('k', 10);
    expect(take.allowed).toBe(true);
    expect(rl.alone).toBe(true);
    expect(logs[0]).toMatch(/no answer within 20 ms/);
  });
});
