// The servers service's scrape-time gauges: servers and pool servers from its read model (plain counts by
// low-cardinality columns), the game machines this process runs, and the pool targets it keeps.
import { countGauge, type GaugeDefinition } from '@spawnpoint/platform';
import type { ReadModels } from '@spawnpoint/read-models';

export function serverGauges(db: ReadModels): GaugeDefinition[] {
  return [
    countGauge(db, {
      name: 'spawnpoint_servers', help: 'Game servers in the read model, by status and region (stopped ones included)', labelNames: ['status', 'region'],
      sql: 'SELECT status, region, count(*)::int AS n FROM servers GROUP BY status, region',
    }),
    countGauge(db, {
      name: 'spawnpoint_pool_servers', help: 'Pool servers not stopped, by region and state (launching, ready, claimed)', labelNames: ['region', 'state'],
      sql: `SELECT region, CASE WHEN pool_claimed_at IS NOT NULL THEN 'claimed' WHEN status = 'running' THEN 'ready' ELSE 'launching' END AS state,
          count(*)::int AS n FROM servers WHERE is_pool_server AND status IN ('launching', 'running') GROUP BY 1, 2`,
    }),
  ];
}

/** The game machines this servers process runs now: child processes or pods (`kind`). */
export function machineGauges(runtime: { kind: 'process' | 'kubernetes'; running(): string[] }): GaugeDefinition[] {
  const kind = runtime.kind === 'process' ? 'process' : 'pod';
  return [
    {
      name: 'spawnpoint_game_machines', help: 'Game machines this servers process runs, by kind (process, pod)', labelNames: ['kind'],
      source: async () => [{ labels: { kind }, value: runtime.running().length }],
    },
  ];
}

/** What the pools are told to keep ready: the sum of min_ready over the projects with a pool, by region. */
export function poolTargetGauges(minReady: () => Map<string, number>): GaugeDefinition[] {
  return [
    {
      name: 'spawnpoint_pool_min_ready', help: 'Pool servers the configured pools keep ready (min_ready summed over projects), by region', labelNames: ['region'],
      source: async () => [...minReady()].map(([region, value]) => ({ labels: { region }, value })),
    },
  ];
}
