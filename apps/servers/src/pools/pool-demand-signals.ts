// What the pools see of demand, per (project, region), for the demand policy (libs/domain pool-demand.ts):
// the matches forming in the matchmaking queues (the active matcher's queueStats broadcast, with how fast
// they grow) and the starts a pool could serve (claimed or fallen back to cold: both are demand; counting
// only claims would keep a pool at zero for ever). The policy's state is kept here, so the next decision
// continues it.
import { EMPTY_METER, NO_DEMAND_SEEN, observe, poolTarget, rateAt, type DemandState, type PoolConfig, type RateMeter } from '@spawnpoint/domain';
import type { QueueStatsBroadcast } from '@spawnpoint/proto';

/** Claims per second forget with this half-life. */
const CLAIM_HALF_LIFE_S = 30;
/** A queue figure older than this (no broadcast: no active matcher) counts as no queue. */
const QUEUE_STALE_MS = 15_000;
/** The queue's trend forgets with this weight per broadcast. */
const TREND_WEIGHT = 0.3;

interface Queue { matches: number; at: number; trend: number }

const key = (projectId: string, region: string) => `${projectId}\u0000${region}`;

export class PoolDemandSignals {
  private queues = new Map<string, Queue>();
  private readonly meters = new Map<string, RateMeter>();
  private readonly states = new Map<string, DemandState>();
  /** The policy's reasons for each region's last target (GET /v3/pools). */
  private readonly reasons = new Map<string, string[]>();

  /** The matcher's figures: matches forming per (project, region), summed over configs and modes. Returns the projects named. */
  queueFigures(broadcast: QueueStatsBroadcast, at: number): Set<string> {
    const sums = new Map<string, number>();
    const projects = new Set<string>();
    for (const q of broadcast.queues) {
      projects.add(q.projectId);
      // An older matchmaking service sends no matchesForming: a queue with lobbies in it forms at least one.
      const forming = q.matchesForming ?? (q.lobbiesInQueue > 0 ? 1 : 0);
      const k = key(q.projectId, q.region);
      sums.set(k, (sums.get(k) ?? 0) + forming);
    }
    const next = new Map<string, Queue>();
    for (const k of new Set([...sums.keys(), ...this.queues.keys()])) {
      const before = this.queues.get(k);
      const matches = sums.get(k) ?? 0;
      if (!before && matches === 0) continue;
      const seconds = before ? Math.max(0.001, (at - before.at) / 1000) : 1;
      const slope = before ? (matches - before.matches) / seconds : matches;
      const trend = before ? before.trend * (1 - TREND_WEIGHT) + slope * TREND_WEIGHT : 0;
      // A queue that emptied is forgotten once its trend has settled.
      if (matches === 0 && Math.abs(trend) < 0.01) continue;
      next.set(k, { matches, at, trend });
    }
    for (const k of this.queues.keys()) if (!next.has(k)) projects.add(k.split('\u0000')[0]);
    this.queues = next;
    return projects;
  }

  /** A start request a pool of this project and region could serve (claimed, or cold for want of a ready server). */
  wanted(projectId: string, region: string, at: number): void {
    const k = key(projectId, region);
    this.meters.set(k, observe(this.meters.get(k) ?? EMPTY_METER, at, 1, CLAIM_HALF_LIFE_S));
  }

  /** Why a region's last target is what it is. */
  why(projectId: string, region: string): string[] {
    return this.reasons.get(key(projectId, region)) ?? [];
  }

  /** The ready count of each of the pool's regions sized by demand (regions without `demand` are absent). */
  targets(projectId: string, config: PoolConfig, at: number): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [region, regionConfig] of Object.entries(config.regions)) {
      if (!regionConfig.demand) continue;
      const k = key(projectId, region);
      const queue = this.queues.get(k);
      const fresh = queue && at - queue.at <= QUEUE_STALE_MS ? queue : null;
      const target = poolTarget(regionConfig, {
        at, queuedMatches: fresh?.matches ?? 0, queueTrendPerSecond: fresh?.trend ?? 0, lobbiesStarting: 0,
        claimRatePerSecond: rateAt(this.meters.get(k) ?? EMPTY_METER, at, CLAIM_HALF_LIFE_S),
      }, this.states.get(k) ?? NO_DEMAND_SEEN);
      this.states.set(k, target.state);
      this.reasons.set(k, target.why);
      out[region] = target.desired;
    }
    return out;
  }
}
