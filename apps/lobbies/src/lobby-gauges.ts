// The lobbies service's scrape-time gauge: lobbies in its read model, by status.
import type { GaugeDefinition } from '@spawnpoint/platform';
import { readModelsPool, ReadModels } from '@spawnpoint/read-models';

async function rows(db: ReadModels, sql: string): Promise<{ [k: string]: string | number }[]> {
  return (await readModelsPool(db).query(sql)).rows;
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
