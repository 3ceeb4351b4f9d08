// What each service reports to the gateway about itself, over the bus, so the gateway needs no event
// store and reads no service's tables (issue 12): its health (event store, database, projections) and
// its projections' parked events. Every service answers on subjects named after it.

/** The services the gateway asks (each answers for its own projections). */
export const SERVICE_NAMES = ['projects', 'builds', 'servers', 'lobbies'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export const serviceHealthSubject = (service: string): `health.${string}` => `health.${service}`;
export const parkedListSubject = (service: string): `parked.list.${string}` => `parked.list.${service}`;

export interface DependencyCheck {
  ok: boolean;
  detail?: string;
}

export interface ProjectionHealthReport {
  name: string;
  parked_events: number;
  /** Age of the oldest event of its categories it has not applied yet (0 when caught up). */
  lag_seconds: number;
}

export interface ServiceHealthReport {
  service: string;
  checks: { eventStore: DependencyCheck; database: DependencyCheck };
  /** Absent when they could not be read (the database is down). */
  projections?: ProjectionHealthReport[];
}

/** `projection`: only that projection's; `id`: only that parked event (the gateway finds its owner). */
export interface ListParkedRequest {
  projection?: string;
  id?: string;
}

export interface ParkedEventReport {
  id: string;
  projection: string;
  position: string;
  event_id: string;
  stream_id: string;
  event_type: string;
  error: string;
  attempts: number;
  first_failed_at: string;
  last_failed_at: string;
}

export interface ListParkedReply {
  parked_events: ParkedEventReport[];
}
