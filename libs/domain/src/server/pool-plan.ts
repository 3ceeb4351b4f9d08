// What a pool needs, as a pure plan: per region keep `min_ready` unclaimed servers of the pool's build
// version and size, never more than `max` unclaimed in all; replace servers of an old version only as
// fast as new ones are ready (capacity never drops below min_ready because of a rollout); drain what
// the config no longer wants. Claimed servers are never in the input: they are the caller's. A region
// sized by demand (pool-demand.ts) passes its target instead of min_ready, and is brought down to it too.

import type { PoolDemandConfig } from './pool-demand';

export interface PoolRegionConfig {
  min_ready: number;
  max: number;
  /** Sized by demand (pool-demand.ts) between 0 (after a quiet spell) or min_ready and max; absent: min_ready always. */
  demand?: PoolDemandConfig;
}

export interface PoolConfig {
  enabled: boolean;
  regions: Record<string, PoolRegionConfig>;
  build_name: string;
  build_version: number | null;
  compute_size: string;
  /** A claimed server with no player reported within this many seconds is stopped (issue 38); absent or null: no lease. */
  claim_lease_seconds?: number | null;
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
    const min_ready = byDemand ?? configured.min_ready;
    const max = byDemand === undefined ? configured.max : Math.min(configured.max, byDemand);
    const list = byRegion.get(region) ?? [];
    const isCurrent = (m: PoolMember) => m.version === targetVersion && m.computeSize === config.compute_size;
    const current = list.filter(isCurrent);
    const stale = oldestFirst(list.filter((m) => !isCurrent(m)));
    const staleLaunching = stale.filter((m) => m.status === 'launching');
    const staleRunning = stale.filter((m) => m.status === 'running');
    const readyNow = current.filter((m) => m.status === 'running').length + staleRunning.length;

    // Stale servers that are not serving yet go at once; running ones only while enough stay ready.
    const stopping = [...staleLaunching, ...staleRunning.slice(0, Math.max(0, readyNow - min_ready))];
    // Too many of the current version (max lowered): drop the ones still launching first.
    const excess = current.length - max;
    if (excess > 0) {
      const surplus = [...current.filter((m) => m.status === 'launching'), ...oldestFirst(current.filter((m) => m.status === 'running'))];
      stopping.push(...surplus.slice(0, excess));
    }
    let unclaimed = list.length - stopping.length;
    const need = Math.max(0, min_ready - Math.min(current.length, max));
    let room = Math.max(0, max - unclaimed);
    // A full pool of the old version makes room for the new one, one slot per missing server.
    const remaining = staleRunning.filter((m) => !stopping.includes(m));
    while (room < need && remaining.length > 0) {
      stopping.push(remaining.shift()!);
      unclaimed--;
      room++;
    }
    plan.stop.push(...stopping.map((m) => m.serverId));
    const count = Math.min(need, room);
    if (count > 0) plan.start.push({ region, count });
  }
  return plan;
}

function oldestFirst(list: PoolMember[]): PoolMember[] {
  return [...list].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}
