import type { Server } from '@spawnpoint/client';
import type { Command } from '../command';
import { print, table } from '../output';

interface PoolRegion { region: string; min_ready: number; max: number; ready: number; claimed: number; launching: number }

/** Pool servers per region: ready (running, unclaimed), claimed, launching, next to the configured sizes. */
export function poolStatus(settings: { pool_config?: { enabled?: boolean; regions?: Record<string, { min_ready: number; max: number }> } | null }, servers: Server[]): PoolRegion[] {
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

export const poolsStatus: Command = {
  words: ['pools', 'status'],
  args: [],
  summary: 'Warm pool per region: configured min_ready / max, and ready, claimed, launching servers',
  options: {},
  async run(ctx) {
    const sp = ctx.client();
    const settings = await sp.projects.getSettings();
    const servers: Server[] = [];
    for await (const s of sp.servers.listAll({})) if (s.is_pool_server && s.status !== 'stopped') servers.push(s);
    const status = { enabled: Boolean((settings as { pool_config?: { enabled?: boolean } | null }).pool_config?.enabled), regions: poolStatus(settings as never, servers) };
    print(ctx.output, status, () => `pool ${status.enabled ? 'enabled' : 'disabled'}\n${table(status.regions as unknown as Record<string, unknown>[], ['region', 'min_ready', 'max', 'ready', 'claimed', 'launching'])}`);
  },
};
