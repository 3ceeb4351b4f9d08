// Token buckets per (key, bucket kind): capacity = the per-second limit, refilled continuously.
// Held in this gateway's memory: standalone's limiter, and the local fallback of the shared one (shared-rate-limiter.ts, ADR-0008).
export type BucketKind = 'read' | 'write' | 'player';

interface Bucket { tokens: number; at: number }

export interface Take { allowed: boolean; limit: number; remaining: number; retryAfterSeconds: number }

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly now: () => number = () => Date.now()) {}

  take(key: string, limit: number): Take {
    const t = this.now();
    let b = this.buckets.get(key);
    if (!b) {
      b = { tokens: limit, at: t };
      this.buckets.set(key, b);
      if (this.buckets.size > 100_000) this.evict(t);
    }
    b.tokens = Math.min(limit, b.tokens + ((t - b.at) / 1000) * limit);
    b.at = t;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { allowed: true, limit, remaining: Math.floor(b.tokens), retryAfterSeconds: 0 };
    }
    return { allowed: false, limit, remaining: 0, retryAfterSeconds: Math.max(1, Math.ceil((1 - b.tokens) / limit)) };
  }

  /** Buckets idle for a second are full again: forgetting them changes nothing. */
  private evict(t: number): void {
    for (const [k, b] of this.buckets) if (t - b.at > 1000) this.buckets.delete(k);
  }
}
