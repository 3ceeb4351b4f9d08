// What a pool needs, as a pure plan: per region keep `min_ready` unclaimed servers of the pool's build
// version and size, never more than `max` unclaimed in all; drain what the config no longer wants. A
// rollout (a new build version or size) replaces old servers within two bounds, as a Kubernetes
// Deployment does: at most `max_surge` servers above the target at once, and ready ones never fewer than
// the target less `max_unavailable` (0 by default: an old server goes only once a new one is ready).
// Claimed servers are never in the input: they are the caller's, and a rollout never touches them. A
// region sized by demand (pool-demand.ts) passes its target instead of min_ready, and is brought down to it too.

import type { PoolDemandConfig } from './pool-demand';

export interface PoolRegionConfig {
  min_ready: number;
  max: number;
  /** Sized by demand (pool-demand.ts) between 0 (after a quiet spell) or min_ready and max; absent: min_ready always. */
  demand?: PoolDemandConfig;
}

/** How a new build version replaces a pool's unclaimed servers (ADR-0025). */
export interface PoolRollout {
  /** Servers started above the target while old ones still serve; default a quarter of the target (at least 1). */
  max_surge?: number | null;
  /** Ready servers the target may lack while old ones are replaced; default 0. */
  max_unavailable?: number | null;
}

export interface PoolConfig {
  enabled: boolean;
  regions: Record<string, PoolRegionConfig>;
  build_name: string;
  build_version: number | null;
  compute_size: string;
  /** A claimed server with no player reported within this many seconds is stopped (issue 38); absent or null: no lease. */
  claim_lease_seconds?: number | null;
  rollout?: PoolRollout | null;
}

/** An unclaimed, active pool server. */
export interface PoolMember {
  serverId: string;
  region: string;
  version: number | null;
  computeSize: string;
  status: 'launching' | 'running';
  createdAt: string;
}

export interface PoolPlan {
  start: { region: string; count: number }[];
  stop: string[];
}

/**
 * `targetVersion`: the build version pool servers should run now (null when no build is ready).
 * `demanded`: the ready count of each region sized by demand (its min_ready and its ceiling below max).
 */
export function planPool(config: PoolConfig | null, targetVersion: number | null, members: PoolMember[], demanded: Record<string, number> = {}): PoolPlan {
  const plan: PoolPlan = { start: [], stop: [] };
  const byRegion = new Map<string, PoolMember[]>();
  for (const m of members) byRegion.set(m.region, [...(byRegion.get(m.region) ?? []), m]);
  const wanted = config?.enabled ? config.regions : {};

  for (const [region, list] of byRegion) {
    if (!(region in wanted)) plan.stop.push(...list.map((m) => m.serverId));
  }
  if (!config?.enabled || targetVersion === null) return plan;

  for (const [region, configured] of Object.entries(wanted)) {
    const byDemand = demanded[region];
    const target = byDemand ?? configured.min_ready;
    const max = byDemand === undefined ? configured.max : Math.min(configured.max, byDemand);
    const list = byRegion.get(region) ?? [];
    const isCurrent = (m: PoolMember) => m.version === targetVersion && m.computeSize === config.compute_size;
    const current = list.filter(isCurrent);
    const stale = oldestFirst(list.filter((m) => !isCurrent(m)));
    const staleRunning = stale.filter((m) => m.status === 'running');
    const readyNow = current.filter((m) => m.status === 'running').length + staleRunning.length;
    const surge = config.rollout?.max_surge ?? Math.max(1, Math.ceil(target / 4));
    const unavailable = config.rollout?.max_unavailable ?? 0;

    // Stale servers that are not serving yet go at once; running ones only while enough stay ready.
    const stopping = [...stale.filter((m) => m.status === 'launching'), ...staleRunning.slice(0, Math.max(0, readyNow - (target - unavailable)))];
    // Too many of the current version (max lowered): drop the ones still launching first.
    const excess = current.length - max;
    if (excess > 0) {
      const surplus = [...current.filter((m) => m.status === 'launching'), ...oldestFirst(current.filter((m) => m.status === 'running'))];
      stopping.push(...surplus.slice(0, excess));
    }
    const need = Math.max(0, target - Math.min(current.length, max));
    // Old and new together stay within max, and within the target plus the surge while old ones remain.
    const ceiling = Math.min(configured.max, target + surge);
    let count = Math.min(need, Math.max(0, ceiling - (list.length - stopping.length)));
    // No room at all (max leaves none, nothing replaced yet, nothing new on its way): one old server makes
    // room for one new one, so a pool kept at its max still rolls, one at a time.
    const remaining = staleRunning.filter((m) => !stopping.includes(m));
    if (count === 0 && need > 0 && remaining.length > 0 && !current.some((m) => m.status === 'launching') && !stopping.some((m) => m.status === 'running')) {
      stopping.push(remaining[0]);
      count = 1;
    }
    plan.stop.push(...stopping.map((m) => m.serverId));
    if (count > 0) plan.start.push({ region, count });
  }
  return plan;
}

function oldestFirst(list: PoolMember[]): PoolMember[] {
  return [...list].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}
