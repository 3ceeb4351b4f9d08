// The event store's pools survive a database outage: the same rule as read-models' outage-safe-pool.ts
// (which this library cannot import: it sits below it). A client the server dropped while checked out
// would otherwise emit an unhandled 'error' and end the process.
import type { Pool } from 'pg';

export function outageSafe<P extends Pool>(pool: P): P {
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  return pool;
}
