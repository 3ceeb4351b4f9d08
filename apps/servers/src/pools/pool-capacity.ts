// GET /v3/pools as a pure function of what the pool manager keeps: each configured region's desired count
// and why, next to its unclaimed members (ready, launching, of an older version) and its claimed servers.
import type { PoolConfig, PoolMember } from '@spawnpoint/domain';
import type { PoolCapacityView } from '@spawnpoint/proto';

export interface PoolCapacityInput {
  /** The pool config and each region's desired count at the last reconcile (none yet: no pool). */
  sized: { config: PoolConfig; desired: Record<string, number> } | undefined;
  /** The build version pool servers run now. */
  version: number | null;
  /** The project's unclaimed active pool servers. */
  members: PoolMember[];
  /** The active claimed pool servers per region. */
  claimed: Record<string, number>;
  /** The demand policy's reasons for a demand-sized region. */
  why: (region: string) => string[];
}

export function poolCapacity({ sized, version, members, claimed, why: reasons }: PoolCapacityInput): PoolCapacityView {
  const config = sized?.config;
  const regions = Object.entries(config?.enabled ? config.regions : {}).map(([region, c]) => {
    const here = members.filter((m) => m.region === region);
    const current = here.filter((m) => m.version === version && m.computeSize === config!.compute_size);
    const why = c.demand ? reasons(region) : ['static: min_ready'];
    const outdated = here.length - current.length;
    return {
      region, sized_by: c.demand ? 'demand' as const : 'static' as const, min_ready: c.min_ready, max: c.max, desired: sized!.desired[region] ?? c.min_ready,
      ready: current.filter((m) => m.status === 'running').length, launching: current.filter((m) => m.status === 'launching').length,
      outdated, claimed: claimed[region] ?? 0,
      why: outdated > 0 ? [...why, `rolling out version ${version}: ${outdated} older server(s) to replace`] : why,
    };
  });
  return { enabled: !!config?.enabled, build_name: config?.build_name ?? null, build_version: config?.enabled ? version : null, regions };
}
