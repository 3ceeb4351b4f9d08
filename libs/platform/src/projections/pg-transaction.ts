// One transaction on a pg pool: BEGIN, the work, COMMIT; on failure ROLLBACK, and a connection whose
// ROLLBACK failed is destroyed rather than returned to the pool. Used by the projection and workflow runners.
import type { Pool } from 'pg';
import type { SqlTx } from './projection-runner';

export async function inPgTransaction(pool: Pool, fn: (sql: SqlTx) => Promise<void>): Promise<void> {
  const client = await pool.connect();
  let unusable: Error | undefined;
  try {
    await client.query('BEGIN');
    await fn(client);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch((e: Error) => (unusable = e));
    throw err;
  } finally {
    client.release(unusable);
  }
}
