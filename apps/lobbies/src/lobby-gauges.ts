// The lobbies service's scrape-time gauge: lobbies in its read model, by status.
import { countGauge, type GaugeDefinition } from '@spawnpoint/platform';
import type { ReadModels } from '@spawnpoint/read-models';

export function lobbyGauges(db: ReadModels): GaugeDefinition[] {
  return [
    countGauge(db, {
      name: 'spawnpoint_lobbies', help: 'Lobbies in the read model, by status', labelNames: ['status'],
      sql: 'SELECT status, count(*)::int AS n FROM lobbies GROUP BY status',
    }),
  ];
}
