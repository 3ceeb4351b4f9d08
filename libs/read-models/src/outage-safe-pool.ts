// A pg pool no database outage can crash. A connection the server drops (a restart, a failover, an
// immediate stop) emits 'error': on an idle client the pool's own listener takes it (and the pool
// re-emits it: handled below), but a client checked out and waiting between two statements (an advisory
// lock held while the work runs, a transaction between statements) has no listener, and an unhandled
// 'error' ends the process. Every client gets one for its whole life: the error then surfaces as the
// rejection of its next statement, and the pool discards the client when it is released (not queryable).
import type { Pool } from 'pg';

export function outageSafe<P extends Pool>(pool: P): P {
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  return pool;
}
