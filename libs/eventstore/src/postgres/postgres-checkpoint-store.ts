// Subscriber checkpoints in PostgreSQL. The table is created by this store's own migrate(), so it
// can live in a different database from the events (e.g. next to a projection's read model).
import { Pool } from 'pg';
import type { CheckpointStore } from '../event-store';
import { MIGRATE_LOCK } from './schema';

// One simple-protocol query string runs as one transaction, so the advisory lock guards the CREATE
// against a concurrent migrate() (IF NOT EXISTS alone can still collide on the catalog).
const CHECKPOINTS_SQL = `
SELECT pg_advisory_xact_lock(${MIGRATE_LOCK});
CREATE TABLE IF NOT EXISTS event_checkpoints (
  name       text PRIMARY KEY,
  position   bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
`;

export class PostgresCheckpointStore implements CheckpointStore {
  private readonly pool: Pool;
  /** Only a pool this store created is ended by close(). */
  private readonly ownsPool: boolean;

  constructor(poolOrConnectionString: Pool | string) {
    this.ownsPool = typeof poolOrConnectionString === 'string';
    if (typeof poolOrConnectionString === 'string') {
      this.pool = new Pool({ connectionString: poolOrConnectionString, max: 2 });
      this.pool.on('error', () => undefined); // see PostgresEventStore: a dropped idle connection must not crash
      this.pool.on('connect', (c) => c.on('error', () => undefined));
    } else {
      this.pool = poolOrConnectionString;
    }
  }

  /** Creates event_checkpoints if missing; safe to run concurrently. */
  async migrate(): Promise<void> {
    await this.pool.query(CHECKPOINTS_SQL);
  }

  /** 0n when the subscriber has never saved: read from the start. */
  async load(name: string): Promise<bigint> {
    const { rows } = await this.pool.query<{ position: string }>(
      'SELECT position FROM event_checkpoints WHERE name = $1',
      [name],
    );
    return rows.length ? BigInt(rows[0].position) : 0n;
  }

  async save(name: string, position: bigint): Promise<void> {
    await this.pool.query(
      `INSERT INTO event_checkpoints (name, position, updated_at) VALUES ($1, $2, now())
       ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position, updated_at = now()`,
      [name, position.toString()],
    );
  }

  async close(): Promise<void> {
    if (this.ownsPool && !this.pool.ended) await this.pool.end();
  }
}
