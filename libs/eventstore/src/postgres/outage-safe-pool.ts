// A pg pool no database outage can crash or starve (the one definition: read-models re-exports it).
// - A connection the server drops (a restart, a failover, an immediate stop) emits 'error'. On an idle
//   client the pool's own listener takes it, but a client checked out and waiting between two statements
//   has none, and an unhandled 'error' ends the process: every client gets a listener for its whole life.
// - A client whose connection dies while checked out goes back to the pool at once, as broken, so the pool
//   can open a new one. Its holder may never release it: Prisma's driver adapter leaks a transaction's
//   client when the connection dies mid-transaction, and after a few outages every checkout waited forever
//   (a servers replica stopped renewing its lease and answering; the chaos suite). The holder's own later
//   release is then a no-op.
import type { Pool, PoolClient } from 'pg';

export function outageSafe<P extends Pool>(pool: P): P {
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
    releaseWhenDead(client as PoolClient);
  });
  return pool;
}

function releaseWhenDead(client: PoolClient): void {
  // pg-pool sets `release` on every checkout (once per checkout); the accessor keeps it and hands out a
  // release that works once, whoever calls it first: the holder, or the dead connection below.
  let release: ((err?: Error | boolean) => void) | null = null;
  Object.defineProperty(client, 'release', {
    configurable: true,
    get: () => (err?: Error | boolean) => {
      const current = release;
      release = null;
      current?.(err);
    },
    set: (fn: (err?: Error | boolean) => void) => {
      release = fn;
    },
  });
  const dead = (err: Error) => {
    const current = release;
    release = null;
    current?.(err);
  };
  client.on('error', dead);
  client.on('end', () => dead(new Error('the database connection ended')));
}
