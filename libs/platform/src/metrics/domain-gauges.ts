// Domain gauges from the read models, at scrape time: plain counts grouped by low-cardinality columns.
// Each is registered only by the service that owns the table (servers, lobbies).
import { readModelsPool, ReadModels } from '@spawnpoint/read-models';
import type { GaugeDefinition } from './service-metrics';

async function rows(db: ReadModels, sql: string): Promise<{ [k: string]: string | number }[]> {
  return (await readModelsPool(db).query(sql)).rows;
}

export function serverGauges(db: ReadModels): GaugeDefinition[] {
  return [
    {
      name: 'spawnpoint_servers', help: 'Game servers in the read model, by status and region (stopped ones included)', labelNames: ['status', 'region'],
      source: async () => (await rows(db, 'SELECT status, region, count(*)::int AS n FROM servers GROUP BY status, region'))
        .map((r) => ({ labels: { status: String(r.status), region: String(r.region) }, value: Number(r.n) })),
    },
    {
      name: 'spawnpoint_pool_servers', help: 'Pool servers not stopped, by region and state (launching, ready, claimed)', labelNames: ['region', 'state'],
      source: async () => (await rows(db, `SELECT region, CASE WHEN pool_claimed_at IS NOT NULL THEN 'claimed' WHEN status = 'running' THEN 'ready' ELSE 'launching' END AS state,
          count(*)::int AS n FROM servers WHERE is_pool_server AND status IN ('launching', 'running') GROUP BY 1, 2`))
        .map((r) => ({ labels: { region: String(r.region), state: String(r.state) }, value: Number(r.n) })),
    },
  ];
}

export function lobbyGauges(db: ReadModels): GaugeDefinition[] {
  return [
    {
      name: 'spawnpoint_lobbies', help: 'Lobbies in the read model, by status', labelNames: ['status'],
      source: async () => (await rows(db, 'SELECT status, count(*)::int AS n FROM lobbies GROUP BY status'))
        .map((r) => ({ labels: { status: String(r.status) }, value: Number(r.n) })),
    },
  ];
}
