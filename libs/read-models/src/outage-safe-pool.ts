// The event store's outageSafe (libs/eventstore/src/postgres/outage-safe-pool.ts): one definition.
export { outageSafe } from '@spawnpoint/eventstore';
