// A service's scrape-time gauges: its projections' lag (events and seconds behind their head) and parked
// events (projectionsHealth), its outbox relay's lag, its durable consumers' backlog on NATS, and what the
// service adds from the read models it owns (servers, lobbies, matchmaking: each app's own `*-gauges.ts`).
import type { EventStore } from '@spawnpoint/eventstore';
import type { Bus, EventRelay } from '@spawnpoint/messaging';
import { readModelsPool, type ReadModels } from '@spawnpoint/read-models';
import { projectionsHealth } from '../projections/parked-events';
import { addGaugeSource, GaugeRow } from './scrape-gauge';

export interface GaugeDefinition {
  name: string;
  help: string;
  labelNames: string[];
  source: () => Promise<GaugeRow[]>;
}

/**
 * A gauge of counts from one read-model query, run at scrape time: each row's `labelNames` columns are its
 * labels and its `n` column the value (a service's own gauges: servers by status, lobbies, queue depth).
 */
export function countGauge(db: ReadModels, g: { name: string; help: string; labelNames: string[]; sql: string }): GaugeDefinition {
  return {
    name: g.name, help: g.help, labelNames: g.labelNames,
    source: async () => (await readModelsPool(db).query(g.sql)).rows
      .map((r: Record<string, unknown>) => ({ labels: Object.fromEntries(g.labelNames.map((l) => [l, String(r[l])])), value: Number(r.n) })),
  };
}

export function projectionGauges(db: ReadModels, store: EventStore, names: () => string[]): GaugeDefinition[] {
  // One query per scrape serves both gauges.
  let pending: Promise<Awaited<ReturnType<typeof projectionsHealth>>> | null = null;
  const health = () => {
    pending ??= (names().length ? projectionsHealth(db, store, new Date(), names(), true) : Promise.resolve([])).finally(() => setTimeout(() => (pending = null), 0));
    return pending;
  };
  return [
    {
      name: 'spawnpoint_projection_lag_seconds', help: 'Age of the oldest event a projection has not applied yet (0 when caught up)', labelNames: ['projection'],
      source: async () => (await health()).map((p) => ({ labels: { projection: p.name }, value: p.lag_seconds })),
    },
    {
      name: 'spawnpoint_projection_lag_events', help: 'Events of its categories a projection has not applied yet (counted up to 100000)', labelNames: ['projection'],
      source: async () => (await health()).map((p) => ({ labels: { projection: p.name }, value: p.lag_events ?? 0 })),
    },
    {
      name: 'spawnpoint_projection_parked_events', help: 'Events a projection parked (could not apply)', labelNames: ['projection'],
      source: async () => (await health()).map((p) => ({ labels: { projection: p.name }, value: p.parked_events })),
    },
  ];
}

/** The outbox relay (`relay`: its service) behind the store: events not published yet and the age of the oldest. */
export function relayGauges(relay: string, lagOf: () => EventRelay | null): GaugeDefinition[] {
  let pending: ReturnType<EventRelay['lag']> | null = null;
  const lag = () => {
    const r = lagOf();
    if (!r) return Promise.resolve(null);
    pending ??= r.lag().finally(() => setTimeout(() => (pending = null), 0));
    return pending;
  };
  return [
    {
      name: 'spawnpoint_relay_lag_events', help: 'Events in the store the outbox relay has not published yet (counted up to 100000)', labelNames: ['relay'],
      source: async () => { const l = await lag(); return l ? [{ labels: { relay }, value: l.events }] : []; },
    },
    {
      name: 'spawnpoint_relay_lag_seconds', help: 'Age of the oldest event the outbox relay has not published yet (0 when caught up)', labelNames: ['relay'],
      source: async () => { const l = await lag(); return l ? [{ labels: { relay }, value: l.seconds }] : []; },
    },
  ];
}

/** Each durable consumer's backlog on the bus (NATS JetStream num_pending; the in-process bus keeps none). */
export function consumerGauges(bus: Bus): GaugeDefinition[] {
  if (!bus.consumerLag) return [];
  return [
    {
      name: 'spawnpoint_consumer_lag_events', help: 'Messages of the event stream not delivered to a durable consumer yet (JetStream num_pending)', labelNames: ['consumer'],
      source: async () => (await bus.consumerLag!()).map((c) => ({ labels: { consumer: c.durable }, value: c.pending })),
    },
  ];
}

/** Registers the gauges; returns their removal (the service stops). */
export function registerGauges(definitions: GaugeDefinition[]): () => void {
  const removals = definitions.map((d) => addGaugeSource(d.name, d.help, d.labelNames, d.source));
  return () => removals.forEach((remove) => remove());
}
