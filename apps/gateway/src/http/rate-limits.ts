// The gateway's rate-limit counters: in this process's memory (standalone, or SPAWNPOINT_RATE_LIMITS=local),
// else shared by every gateway replica through PostgreSQL (SharedRateLimiter, ADR-0008).
import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { CONFIG, PlatformConfig } from '@spawnpoint/platform';
import { PgBucketStore } from '@spawnpoint/read-models';
import { RateLimiter, Take } from './rate-limiter';
import { SharedRateLimiter } from './shared-rate-limiter';

export interface Limiter {
  take(key: string, limit: number): Take | Promise<Take>;
}

/** Idle shared buckets are full: each gateway deletes the rows of buckets untouched for a minute. */
const PRUNE_EVERY_MS = 60_000;

@Injectable()
export class RateLimits implements Limiter, OnApplicationShutdown {
  readonly shared: boolean;
  private readonly limiter: Limiter;
  private readonly store?: PgBucketStore;
  private readonly pruner?: NodeJS.Timeout;

  constructor(@Inject(CONFIG) config: PlatformConfig) {
    this.shared = (config.rateLimits ?? (config.mode === 'standalone' ? 'local' : 'shared')) === 'shared';
    if (!this.shared) {
      this.limiter = new RateLimiter();
      return;
    }
    const store = new PgBucketStore(config.databaseUrl);
    this.store = store;
    this.limiter = new SharedRateLimiter(store);
    this.pruner = setInterval(() => void store.prune(PRUNE_EVERY_MS).catch(() => undefined), PRUNE_EVERY_MS);
    this.pruner.unref();
  }

  take(key: string, limit: number): Take | Promise<Take> {
    return this.limiter.take(key, limit);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.pruner) clearInterval(this.pruner);
    await this.store?.close().catch(() => undefined);
  }
}

/** Lobby writes of all players of one key together (ADR-0008): ten players' worth of the per-player limit. */
export const LOBBY_KEY_FACTOR = 10;

export function lobbyKeyLimit(limits: { player_per_second: number }): number {
  return limits.player_per_second * LOBBY_KEY_FACTOR;
}

export interface Draw { key: string; limit: number }

/**
 * Draws on each bucket in turn and stops at the first refusal. The answer is the bucket that refused, or,
 * when all allowed, the one with the fewest tokens left (its headers tell the client what binds it).
 */
export async function drawAll(limiter: Limiter, draws: Draw[]): Promise<Take> {
  let binding: Take | null = null;
  for (const d of draws) {
    const take = await limiter.take(d.key, d.limit);
    if (!take.allowed) return take;
    if (!binding || take.remaining < binding.remaining) binding = take;
  }
  return binding!;
}
