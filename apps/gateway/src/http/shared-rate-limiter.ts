// Rate limits shared by every gateway replica without a round trip per request: each gateway spends
// tokens it leased from the key's shared bucket (BucketStore) and leases the next slice before the
// current one runs out. The shared bucket emits `limit` tokens per second in all, so N gateways together
// allow the limit, not N times it. When the store cannot be reached, this gateway counts alone (its own
// in-memory buckets, fail open) for a few seconds and says so in the log. ADR-0008 (limits).
import type { BucketStore, Lease } from '@spawnpoint/read-models';
import { RateLimiter, Take } from './rate-limiter';
import { logger } from '@spawnpoint/logging';

const log = logger('rate-limits');

export interface SharedRateLimiterOptions {
  now?: () => number;
  /** A lease asks for this share of the per-second limit (at least 1 token). */
  sliceFraction?: number;
  /** Leased tokens not spent within this are dropped, so an old lease never adds to a later burst. */
  leaseTtlMs?: number;
  /** A lease slower than this counts as the store being unreachable. */
  timeoutMs?: number;
  /** How long to count alone after the store failed, before trying it again. */
  fallbackMs?: number;
  log?: (line: string) => void;
}

interface Slice {
  /** The per-second limit the tokens were leased under: an operator's change drops them. */
  limit: number;
  tokens: number;
  expiresAt: number;
  /** The shared bucket's tokens at the last lease: with the local ones, X-RateLimit-Remaining. */
  shared: number;
  /** The shared bucket was empty: refuse here until then, without asking the store per request. */
  deniedUntil: number;
  pending: Promise<void> | null;
  /** Requests waiting for the next lease: it asks for at least that many tokens. */
  waiting: number;
  usedAt: number;
}

export class SharedRateLimiter {
  private readonly slices = new Map<string, Slice>();
  private readonly local: RateLimiter;
  private readonly now: () => number;
  private readonly sliceFraction: number;
  private readonly leaseTtlMs: number;
  private readonly timeoutMs: number;
  private readonly fallbackMs: number;
  private readonly log: (line: string) => void;
  private aloneUntil = 0;
  private loggedAt = -Infinity;

  constructor(private readonly store: BucketStore, options: SharedRateLimiterOptions = {}) {
    this.now = options.now ?? (() => Date.now());
    this.sliceFraction = options.sliceFraction ?? 0.05;
    this.leaseTtlMs = options.leaseTtlMs ?? 1000;
    this.timeoutMs = options.timeoutMs ?? 500;
    this.fallbackMs = options.fallbackMs ?? 5000;
    this.log = options.log ?? ((line) => log.error(line));
    this.local = new RateLimiter(this.now);
  }

  /** Tokens one lease asks for: a small share of the limit, so unspent slices cost little accuracy. */
  static sliceSize(limit: number, fraction = 0.05): number {
    return Math.max(1, Math.ceil(limit * fraction));
  }

  /** Whether this gateway is counting alone because the store failed. */
  get alone(): boolean {
    return this.now() < this.aloneUntil;
  }

  take(key: string, limit: number): Take | Promise<Take> {
    if (this.alone) return this.local.take(key, limit);
    const s = this.slice(key, limit);
    if (s.limit !== limit) Object.assign(s, { limit, tokens: 0, deniedUntil: 0 });
    if (this.now() >= s.expiresAt) s.tokens = 0;
    // The common case: a token of the current slice, no waiting (the next slice is leased in the background).
    if (s.tokens >= 1) return this.spend(key, s, limit);
    return this.takeSlow(key, s, limit);
  }

  /**
   * The slice is spent: wait for the lease under way (or start one) while the shared bucket has tokens.
   * Leases grow with the requests waiting, so a burst takes a few round trips, not one per token.
   */
  private async takeSlow(key: string, s: Slice, limit: number): Promise<Take> {
    s.waiting++;
    try {
      for (let attempt = 0; attempt < 4 && s.tokens < 1; attempt++) {
        if (!s.pending && this.now() < s.deniedUntil) break;
        await (s.pending ?? this.refill(key, s, limit));
        if (this.alone) return this.local.take(key, limit);
      }
    } finally {
      s.waiting--;
    }
    if (s.tokens >= 1) return this.spend(key, s, limit);
    const wait = Math.max(0, s.deniedUntil - this.now(), 1000 / limit);
    return { allowed: false, limit, remaining: 0, retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) };
  }

  private spend(key: string, s: Slice, limit: number): Take {
    s.tokens -= 1;
    s.usedAt = this.now();
    // Lease the next slice while half of this one is left: the hot path rarely waits for the store.
    if (s.tokens < SharedRateLimiter.sliceSize(limit, this.sliceFraction) / 2 && !s.pending && this.now() >= s.deniedUntil) {
      void this.refill(key, s, limit);
    }
    // Tokens still held from an earlier slice plus the bucket's remainder (refilled since) can add up past the
    // limit; a request just allowed leaves at most limit - 1.
    return { allowed: true, limit, remaining: Math.min(limit - 1, Math.max(0, Math.floor(s.tokens + s.shared))), retryAfterSeconds: 0 };
  }

  private refill(key: string, s: Slice, limit: number): Promise<void> {
    const want = Math.min(limit, Math.max(SharedRateLimiter.sliceSize(limit, this.sliceFraction), s.waiting));
    s.pending = this.leaseWithin(key, limit, want)
      .then((lease) => {
        const t = this.now();
        if (s.limit !== limit) return; // leased under a limit changed meanwhile
        if (t >= s.expiresAt) s.tokens = 0;
        s.tokens += lease.granted;
        s.expiresAt = t + this.leaseTtlMs;
        s.shared = lease.remaining;
        if (lease.granted < 1) s.deniedUntil = t + Math.max(1, lease.waitMs);
      })
      .catch((err: unknown) => this.goAlone(err))
      .finally(() => { s.pending = null; });
    return s.pending;
  }

  private leaseWithin(key: string, limit: number, want: number): Promise<Lease> {
    return new Promise<Lease>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
      this.store.lease(key, limit, want).then(resolve, reject).finally(() => clearTimeout(timer));
    });
  }

  private goAlone(err: unknown): void {
    const t = this.now();
    this.aloneUntil = t + this.fallbackMs;
    if (t - this.loggedAt >= 30_000) {
      this.loggedAt = t;
      this.log(`rate limits: the shared bucket store failed (${(err as Error).message}); this gateway counts alone for ${this.fallbackMs / 1000} s at a time until it answers`);
    }
  }

  private slice(key: string, limit: number): Slice {
    let s = this.slices.get(key);
    if (!s) {
      s = { limit, tokens: 0, expiresAt: 0, shared: 0, deniedUntil: 0, pending: null, waiting: 0, usedAt: this.now() };
      this.slices.set(key, s);
      if (this.slices.size > 100_000) this.evict();
    }
    return s;
  }

  /** Slices idle past their lease are empty: forgetting them changes nothing. */
  private evict(): void {
    const t = this.now();
    for (const [k, s] of this.slices) if (!s.pending && s.waiting === 0 && t - s.usedAt > this.leaseTtlMs && t >= s.deniedUntil) this.slices.delete(k);
  }
}
