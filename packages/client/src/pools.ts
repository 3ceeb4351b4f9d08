// Warm-pool state per region, worked out from the project settings and its pool servers: shared by the
// CLI (`pools status`) and the web console, which both read the same two calls.
import type { Server, Settings } from './types';

export interface PoolRegion { region: string; min_ready: number; max: number; ready: number; claimed: number; launching: number }

/** Pool servers per region: ready (running, unclaimed), claimed, launching, next to the configured sizes. */
export function poolStatus(settings: Pick<Settings, 'pool_config'>, servers: Server[]): PoolRegion[] {
  const regions = new Map<string, PoolRegion>();
  const entry = (region: string) => {
    let r = regions.get(region);
    if (!r) regions.set(region, (r = { region, min_ready: 0, max: 0, ready: 0, claimed: 0, launching: 0 }));
    return r;
  };
  for (const [region, size] of Object.entries(settings.pool_config?.regions ?? {})) Object.assign(entry(region), { min_ready: size.min_ready, max: size.max });
  for (const s of servers) {
    if (!s.is_pool_server || s.status === 'stopped') continue;
    const r = entry(s.region);
    if (s.pool_claimed_at) r.claimed++;
    else if (s.status === 'running') r.ready++;
    else r.launching++;
  }
  return [...regions.values()].sort((a, b) => a.region.localeCompare(b.region));
}
