// Domain gauges from the read models, at scrape time: plain counts grouped by low-cardinality columns.
// Each is registered only by the service that owns the table (servers, lobbies, matchmaking), or the
// process that holds the figure (game machines, pool targets, the gateway's event streams).
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

export function queueGauges(db: ReadModels): GaugeDefinition[] {
  return [
    {
      name: 'spawnpoint_matchmaking_queue_depth', help: 'Lobbies waiting in the matchmaking queue (not held for a match being formed), by mode and region', labelNames: ['mode', 'region'],
      source: async () => (await rows(db, 'SELECT mode, region, count(*)::int AS n FROM match_tickets WHERE held_by IS NULL GROUP BY mode, region'))
        .map((r) => ({ labels: { mode: String(r.mode), region: String(r.region) }, value: Number(r.n) })),
    },
  ];
}

/** Open lobby event streams (server-sent events) of this gateway. */
export function lobbyStreamGauges(open: () => number): GaugeDefinition[] {
  return [
    { name: 'spawnpoint_lobby_event_streams', help: 'Lobby event streams open on this gateway', labelNames: [], source: async () => [{ labels: {}, value: open() }] },
  ];
}
