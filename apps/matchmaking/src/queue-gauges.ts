// The matchmaking service's scrape-time gauge: lobbies waiting in the queue, by mode and region.
import { countGauge, type GaugeDefinition } from '@spawnpoint/platform';
import type { ReadModels } from '@spawnpoint/read-models';

export function queueGauges(db: ReadModels): GaugeDefinition[] {
  return [
    countGauge(db, {
      name: 'spawnpoint_matchmaking_queue_depth', help: 'Lobbies waiting in the matchmaking queue (not held for a match being formed), by mode and region', labelNames: ['mode', 'region'],
      sql: 'SELECT mode, region, count(*)::int AS n FROM match_tickets WHERE held_by IS NULL GROUP BY mode, region',
    }),
  ];
}
