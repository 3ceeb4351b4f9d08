// Read queries shared by the store and its subscriptions.
import type { Pool } from 'pg';
import type { EventMetadata, RecordedEvent, SubscribeOptions } from '../event-store';

interface EventRow {
  position: string;
  event_id: string;
  stream_id: string;
  revision: number;
  type: string;
  data: unknown;
  metadata: EventMetadata;
  created_at: Date;
}

export const EVENT_COLUMNS = 'position, event_id, stream_id, revision, type, data, metadata, created_at';

export function toRecordedEvent(row: EventRow): RecordedEvent {
  return {
    id: row.event_id,
    streamId: row.stream_id,
    revision: row.revision,
    // bigint columns arrive as strings: pg won't guess at precision.
    position: BigInt(row.position),
    type: row.type,
    data: row.data,
    metadata: row.metadata,
    createdAt: row.created_at,
  };
}

const READ_ALL_OF_SQL = `SELECT ${EVENT_COLUMNS} FROM events WHERE position > $1 AND category = ANY($2::text[]) ORDER BY position LIMIT $3`;
const READ_ALL_SQL = `SELECT ${EVENT_COLUMNS} FROM events WHERE position > $1 ORDER BY position LIMIT $2`;

export async function readAllEvents(
  pool: Pool,
  { fromPosition = 0n, categories, limit }: SubscribeOptions & { limit?: number },
): Promise<RecordedEvent[]> {
  // LIMIT NULL means no limit. Named (prepared once per connection): the live tail runs this on every
  // append, and planning it each time cost more than running it (pg_stat_statements, matchmaking bench).
  const { rows } = categories?.length
    ? await pool.query<EventRow>({ name: 'spawnpoint_read_all_of', text: READ_ALL_OF_SQL, values: [fromPosition.toString(), categories, limit ?? null] })
    : await pool.query<EventRow>({ name: 'spawnpoint_read_all', text: READ_ALL_SQL, values: [fromPosition.toString(), limit ?? null] });
  return rows.map(toRecordedEvent);
}

/** Events after `fromPosition` (of `categories` when non-empty), at most `limit`: an index-only count on (category, position). */
export async function countEventsAfter(pool: Pool, { fromPosition = 0n, categories, limit }: SubscribeOptions & { limit: number }): Promise<number> {
  const { rows } = categories?.length
    ? await pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM (SELECT 1 FROM events WHERE position > $1 AND category = ANY($2::text[]) LIMIT $3) e',
        [fromPosition.toString(), categories, limit],
      )
    : await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM (SELECT 1 FROM events WHERE position > $1 LIMIT $2) e', [fromPosition.toString(), limit]);
  return rows[0].n;
}

/** Position of the last committed event, among `categories` when non-empty (0n when none). */
export async function lastPosition(pool: Pool, categories?: string[]): Promise<bigint> {
  const { rows } = categories?.length
    ? await pool.query<{ p: string }>(
        'SELECT coalesce(max(position), 0) AS p FROM events WHERE category = ANY($1::text[])',
        [categories],
      )
    : await pool.query<{ p: string }>('SELECT coalesce(max(position), 0) AS p FROM events');
  return BigInt(rows[0].p);
}
