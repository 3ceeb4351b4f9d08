// One transaction on a pg pool: BEGIN, the work, COMMIT; on failure ROLLBACK, and a connection whose
// ROLLBACK failed is destroyed rather than returned to the pool. Used by the projection and workflow runners.
import type { Pool, QueryResultRow } from 'pg';

/** A pg connection inside the batch's transaction: plain SQL with `$1`… parameters; a `name` prepares it once per connection. */
export interface SqlTx {
  query<R extends QueryResultRow = Record<string, unknown>>(
    query: string | { name?: string; text: string },
    values?: unknown[],
  ): Promise<{ rows: R[]; rowCount: number | null }>;
}

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
