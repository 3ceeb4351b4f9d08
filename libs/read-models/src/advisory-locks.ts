// Session advisory locks on a small pool of their own, for work that must run one at a time across
// replicas while it waits on other queries (a lock held on the read models' pool could starve them).
import { Pool } from 'pg';

export class AdvisoryLocks {
  private pool: Pool | null = null;

  constructor(private readonly connectionString: string, private readonly poolSize = 4) {}

  /** Runs `work` holding pg_advisory_lock(namespace, hashtext(key)). */
  async run<T>(namespace: number, key: string, work: () => Promise<T>): Promise<T> {
    this.pool ??= new Pool({ connectionString: this.connectionString, max: this.poolSize, allowExitOnIdle: true }).on('error', () => undefined)
      .on('connect', (c) => c.on('error', () => undefined)); // a dropped lock connection fails its query, never the process
    const client = await this.pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1, hashtext($2))', [namespace, key]);
      try {
        return await work();
      } finally {
        await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [namespace, key]);
      }
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    if (pool && !pool.ended) await pool.end();
  }
}
