// A service's scrape-time gauges: its projections' lag and parked events (projectionsHealth), and what
// the service adds from the read models it owns (servers, lobbies: domain-gauges.ts).
import type { EventStore } from '@spawnpoint/eventstore';
import type { ReadModels } from '@spawnpoint/read-models';
import { projectionsHealth } from '../projections/parked-events';
import { addGaugeSource, GaugeRow } from './scrape-gauge';

export interface GaugeDefinition {
  name: string;
  help: string;
  labelNames: string[];
  source: () => Promise<GaugeRow[]>;
}

export function projectionGauges(db: ReadModels, store: EventStore, names: () => string[]): GaugeDefinition[] {
  // One query per scrape serves both gauges.
  let pending: Promise<Awaited<ReturnType<typeof projectionsHealth>>> | null = null;
  const health = () => {
    pending ??= (names().length ? projectionsHealth(db, store, new Date(), names()) : Promise.resolve([])).finally(() => setTimeout(() => (pending = null), 0));
    return pending;
  };
  return [
    {
      name: 'spawnpoint_projection_lag_seconds', help: 'Age of the oldest event a projection has not applied yet (0 when caught up)', labelNames: ['projection'],
      source: async () => (await health()).map((p) => ({ labels: { projection: p.name }, value: p.lag_seconds })),
    },
    {
      name: 'spawnpoint_projection_parked_events', help: 'Events a projection parked (could not apply)', labelNames: ['projection'],
      source: async () => (await health()).map((p) => ({ labels: { projection: p.name }, value: p.parked_events })),
    },
  ];
}

/** Registers the gauges; returns their removal (the service stops). */
export function registerGauges(definitions: GaugeDefinition[]): () => void {
  const removals = definitions.map((d) => addGaugeSource(d.name, d.help, d.labelNames, d.source));
  return () => removals.forEach((remove) => remove());
}
