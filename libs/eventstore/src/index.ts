export * from './event-store';
export { PostgresEventStore } from './postgres/postgres-event-store';
export { outageSafe } from './postgres/outage-safe-pool';
export type { PostgresEventStoreOptions } from './postgres/postgres-event-store';
export { PostgresCheckpointStore } from './postgres/postgres-checkpoint-store';
export { EventStoreDbEventStore } from './eventstoredb/eventstoredb-event-store';
export type { EventStoreDbEventStoreOptions } from './eventstoredb/eventstoredb-event-store';
