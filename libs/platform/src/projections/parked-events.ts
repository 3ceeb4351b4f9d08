// Parked events: what a projection could not apply after its retries, stored with the error and skipped
// so the read model moves on (migration 0007). Also the registry of running projections, which lets the
// health check measure how far behind its head each one is. Plain SQL on the read models' pg pool.
import { EventStore, RecordedEvent } from '@spawnpoint/eventstore';
import { readModelsPool, ReadModels } from '@spawnpoint/read-models';
import type { ParkedEventReport } from '@spawnpoint/proto';
import type { SqlTx } from './pg-transaction';

/** A parked event as the admin API shows it: the contract the services report over the bus. */
export type ParkedEventView = ParkedEventReport;

export interface ParkedRow {
  id: string;
  projection: string;
  position: string;
  stream_id: string;
}

/** The error as storable text: PostgreSQL text refuses NUL, and the message may quote the event. */
export function storableError(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text
    .slice(0, 4000)
    .replace(/\u0000/g, '\\u0000')
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

const PARK_SQL = `INSERT INTO parked_events (projection, position, event_id, stream_id, event_type, error, attempts, first_failed_at, last_failed_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now())
  ON CONFLICT (projection, position) DO UPDATE SET error = EXCLUDED.error, attempts = parked_events.attempts + EXCLUDED.attempts, last_failed_at = now()`;

/** Inside the transaction that also moves the projection's checkpoint past the event. */
export async function insertParked(sql: SqlTx, projection: string, event: RecordedEvent, error: string, attempts: number, firstFailedAt: Date): Promise<void> {
  await sql.query(PARK_SQL, [projection, String(event.position), event.id, event.streamId, event.type, error, attempts, firstFailedAt]);
}

export async function findParked(db: ReadModels, id: string): Promise<ParkedRow | null> {
  if (!/^[0-9]{1,18}$/.test(id)) return null;
  const { rows } = await readModelsPool(db).query<ParkedRow>('SELECT id::text, projection, position::text, stream_id FROM parked_events WHERE id = $1', [id]);
  return rows[0] ?? null;
}

/** Positions of the projection's other parked events of one stream (a replay leaves them parked). */
export async function parkedPositions(db: ReadModels, projection: string, streamId: string): Promise<Set<bigint>> {
  const { rows } = await readModelsPool(db).query<{ position: string }>(
    'SELECT position::text FROM parked_events WHERE projection = $1 AND stream_id = $2', [projection, streamId]);
  return new Set(rows.map((r) => BigInt(r.position)));
}

export async function recordReplayFailure(db: ReadModels, id: string, error: string): Promise<void> {
  await readModelsPool(db).query('UPDATE parked_events SET attempts = attempts + 1, last_failed_at = now(), error = $2 WHERE id = $1', [id, error]);
}

export interface ParkedFilter {
  /** Only these projections' (a service lists its own). */
  projections?: string[];
  projection?: string;
  id?: string;
}

/** A string: that projection's. */
export async function listParked(db: ReadModels, which: ParkedFilter | string = {}): Promise<ParkedEventView[]> {
  const filter = typeof which === 'string' ? { projection: which } : which;
  if (filter.id !== undefined && !/^[0-9]{1,18}$/.test(filter.id)) return [];
  const { rows } = await readModelsPool(db).query<ParkedEventView & { first_failed_at: Date; last_failed_at: Date }>(
    `SELECT id::text, projection, position::text, event_id, stream_id, event_type, error, attempts, first_failed_at, last_failed_at
       FROM parked_events WHERE ($1::text IS NULL OR projection = $1) AND ($2::text[] IS NULL OR projection = ANY($2)) AND ($3::bigint IS NULL OR id = $3)
       ORDER BY projection, position LIMIT 1000`, [filter.projection ?? null, filter.projections ?? null, filter.id ?? null]);
  return rows.map((r) => ({ ...r, first_failed_at: new Date(r.first_failed_at).toISOString(), last_failed_at: new Date(r.last_failed_at).toISOString() }));
}

/** Records which categories a projection reads (the health check's lag needs them). */
export async function registerProjection(db: ReadModels, name: string, categories: string[]): Promise<void> {
  await readModelsPool(db).query(
    `INSERT INTO projections (name, categories, updated_at) VALUES ($1, $2, now())
       ON CONFLICT (name) DO UPDATE SET categories = EXCLUDED.categories, updated_at = now()`, [name, categories]);
}

export interface ProjectionHealth {
  name: string;
  parked_events: number;
  /** Age of the oldest event of its categories it has not applied yet (0 when caught up). */
  lag_seconds: number;
  /** Events of its categories after its checkpoint, up to LAG_EVENTS_CAP (only when asked for: the metrics). */
  lag_events?: number;
}

/** Counting stops here: past it the figure says "very far behind", and a scrape stays cheap. */
export const LAG_EVENTS_CAP = 100_000;

/** A projection this many seconds behind its head makes the service degraded. */
export const LAG_DEGRADED_SECONDS = 30;

/**
 * Registered projections (`names`: only those, e.g. one service's) with their parked count and lag, from
 * the read models and the event store; `countEvents`: with lag_events too.
 */
export async function projectionsHealth(db: ReadModels, store: EventStore, now = new Date(), names?: string[], countEvents = false): Promise<ProjectionHealth[]> {
  const { rows } = await readModelsPool(db).query<{ name: string; categories: string[]; position: string | null; parked: number }>(
    `SELECT p.name, p.categories, c.position::text AS position,
            (SELECT count(*)::int FROM parked_events e WHERE e.projection = p.name) AS parked
       FROM projections p LEFT JOIN checkpoints c ON c.name = p.name WHERE ($1::text[] IS NULL OR p.name = ANY($1)) ORDER BY p.name`, [names ?? null]);
  return Promise.all(rows.map(async (r) => {
    const from = { fromPosition: BigInt(r.position ?? 0), categories: r.categories };
    const [next] = await store.readAll({ ...from, limit: 1 });
    const lag = next ? Math.max(0, Math.floor((now.getTime() - next.createdAt.getTime()) / 1000)) : 0;
    const health: ProjectionHealth = { name: r.name, parked_events: r.parked, lag_seconds: lag };
    if (countEvents) health.lag_events = next ? await store.countAfter({ ...from, limit: LAG_EVENTS_CAP }) : 0;
    return health;
  }));
}
