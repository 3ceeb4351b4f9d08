// Rate-limit token buckets shared by gateway replicas, in PostgreSQL (migration 0009): one statement per
// lease, atomic under the row lock, on the database's clock. A small pool of its own, so a lease never
// queues behind read-model queries.
import { Pool } from 'pg';

export interface Lease {
  /** Whole tokens handed to the caller (0 when the bucket has none). */
  granted: number;
  /** Tokens left in the shared bucket after the grant (for X-RateLimit-Remaining). */
  remaining: number;
  /** With nothing granted: how long until the tokens asked for are there. */
  waitMs: number;
}

export interface BucketStore {
  lease(key: string, limit: number, want: number): Promise<Lease>;
  /** Forgets buckets untouched for `idleMs` (a bucket idle for a second is full: forgetting it changes nothing). */
  prune(idleMs: number): Promise<void>;
  close(): Promise<void>;
}

export class PgBucketStore implements BucketStore {
  private readonly pool: Pool;

  constructor(connectionString: string, options: { poolSize?: number; connectTimeoutMs?: number } = {}) {
    this.pool = new Pool({ connectionString, max: options.poolSize ?? 4, connectionTimeoutMillis: options.connectTimeoutMs ?? 1000, allowExitOnIdle: true });
    // A dropped idle connection is discarded by the pool; without a listener it would crash the process.
    this.pool.on('error', () => undefined);
    // A client dropped while checked out (a long transaction, a lock) emits 'error' too: the query it runs fails instead.
    this.pool.on('connect', (c) => c.on('error', () => undefined));
  }

  async lease(key: string, limit: number, want: number): Promise<Lease> {
    const { rows } = await this.pool.query<{ granted: number; remaining: number; wait_ms: number }>({
      name: 'rate_limit_lease', text: 'SELECT granted, remaining, wait_ms FROM rate_limit_lease($1, $2, $3)', values: [key, limit, want],
    });
    const r = rows[0];
    return { granted: r.granted, remaining: r.remaining, waitMs: r.wait_ms };
  }

  async prune(idleMs: number): Promise<void> {
    await this.pool.query('DELETE FROM rate_limit_buckets WHERE at_ms < extract(epoch FROM clock_timestamp()) * 1000 - $1', [idleMs]);
  }

  async close(): Promise<void> {
    if (!this.pool.ended) await this.pool.end();
  }
}
