// The matchmaking service's scrape-time gauge: lobbies waiting in the queue, by mode and region.
import type { GaugeDefinition } from '@spawnpoint/platform';
import { readModelsPool, ReadModels } from '@spawnpoint/read-models';

async function rows(db: ReadModels, sql: string): Promise<{ [k: string]: string | number }[]> {
  return (await readModelsPool(db).query(sql)).rows;
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
