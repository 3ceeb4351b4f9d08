// The workflow runner's tables (migration 0010_workflows.sql), in plain SQL on the read models' pg pool:
// instance states, timers, and the outbox of intents not yet dispatched.
import type { CommandIntent, DomainEvent } from '@spawnpoint/domain';
import type { Pool } from 'pg';
import type { SqlTx } from '../projections/projection-runner';

/**
 * Makes the transaction it runs in commit asynchronously (no wait for the WAL flush: `SET LOCAL
 * synchronous_commit TO off` as an expression, so a one-statement write needs no second round trip).
 * Only for data derived from the event store with its checkpoint: workflow states, timers and outbox, read
 * models. A PostgreSQL crash can lose the last such commits (never a torn one), and the runner reads the
 * events past the older checkpoint again and decides or applies them again (the same intent keys). Whatever
 * they caused that was acknowledged went through a synchronous commit (an event append) later in the same
 * WAL, which flushed them too. docs/adr/0018-asynchronous-commit-of-derived-data.md.
 */
export const ASYNC_COMMIT = `set_config('synchronous_commit', 'off', true)`;

export const checkpointName = (workflow: string) => `workflow:${workflow}`;

const CHECKPOINT_SQL = `INSERT INTO checkpoints (name, position, updated_at) VALUES ($1, $2, now())
  ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position, updated_at = EXCLUDED.updated_at`;

/** null: the workflow never ran on this database. */
export async function loadCheckpoint(pool: Pool, workflow: string): Promise<bigint | null> {
  const { rows } = await pool.query<{ position: string }>('SELECT position::text FROM checkpoints WHERE name = $1', [checkpointName(workflow)]);
  return rows[0] ? BigInt(rows[0].position) : null;
}

/**
 * The store's head when the workflow first ran on this database (recorded once, beside its checkpoint):
 * history up to it is folded without sending commands, even if that first run crashed half way.
 */
export async function firstRunHead(pool: Pool, workflow: string, head: () => Promise<bigint>): Promise<bigint> {
  const name = `${checkpointName(workflow)}#first-run-head`;
  const { rows } = await pool.query<{ position: string }>('SELECT position::text FROM checkpoints WHERE name = $1', [name]);
  if (rows[0]) return BigInt(rows[0].position);
  await pool.query('INSERT INTO checkpoints (name, position, updated_at) VALUES ($1, $2, now()) ON CONFLICT (name) DO NOTHING', [name, String(await head())]);
  return firstRunHead(pool, workflow, head);
}

export async function saveCheckpoint(sql: SqlTx, workflow: string, position: bigint): Promise<void> {
  await sql.query({ name: 'spawnpoint_checkpoint_save', text: CHECKPOINT_SQL }, [checkpointName(workflow), String(position)]);
}

export async function loadStates(sql: SqlTx, workflow: string, keys: string[]): Promise<Map<string, unknown>> {
  if (keys.length === 0) return new Map();
  const { rows } = await sql.query<{ key: string; state: unknown }>('SELECT key, state FROM workflow_states WHERE workflow = $1 AND key = ANY($2)', [workflow, keys]);
  return new Map(rows.map((r) => [r.key, r.state]));
}

/** A timer as a decision leaves it: set (at, event) or cancelled (null). */
export type TimerChange = { key: string; id: string; set: { at: string; event: DomainEvent } | null };

/** What one decision changes: instance states, timers (net: one change per timer), new intents. */
export interface Changes {
  states: Map<string, unknown>;
  timers: Map<string, TimerChange>;
  intents: { key: string; intent: CommandIntent }[];
}

export const noChanges = (): Changes => ({ states: new Map(), timers: new Map(), intents: [] });

export const timerSlot = (key: string, id: string) => `${key}\u0000${id}`;

// One statement (so one round trip, atomic on its own): the data-modifying CTEs all run. Every row is
// touched once (states by key, timers net by slot), which ON CONFLICT ... DO UPDATE requires. The rows
// travel as one JSON document each (no array parameters: pg escapes those element by element). Cancelled
// timers and sent intents are deleted by workflow_forget (migration 0015), one primary-key lookup each: as
// a join here they were planned as a scan of the whole table (the slots cancelled never touch the slots set).
// Its transaction commits without waiting for the WAL flush (ASYNC_COMMIT): see there.
const WRITE_SQL = `WITH
  st AS (INSERT INTO workflow_states (workflow, key, state, updated_at)
           SELECT $1, k, s, now() FROM jsonb_to_recordset($2::jsonb) AS t(k text, s jsonb)
         ON CONFLICT (workflow, key) DO UPDATE SET state = EXCLUDED.state, updated_at = now()),
  ts AS (INSERT INTO workflow_timers (workflow, key, id, due_at, event)
           SELECT $1, k, id, at, e FROM jsonb_to_recordset($4::jsonb) AS t(k text, id text, at timestamptz, e jsonb)
         ON CONFLICT (workflow, key, id) DO UPDATE SET due_at = EXCLUDED.due_at, event = EXCLUDED.event),
  oi AS (INSERT INTO workflow_intents (workflow, key, intent_key, intent)
           SELECT $1, k, ik, i FROM ROWS FROM (jsonb_to_recordset($5::jsonb) AS (k text, ik text, i jsonb)) WITH ORDINALITY AS t(k, ik, i, n) ORDER BY n
         RETURNING id),
  cp AS (INSERT INTO checkpoints (name, position, updated_at) SELECT $6, $7::bigint, now() WHERE $7::bigint IS NOT NULL
         ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position, updated_at = EXCLUDED.updated_at)
  SELECT array(SELECT o.id FROM oi o ORDER BY o.id)::text[] AS ids, workflow_forget($1, $3::jsonb, $8::jsonb) AS forgot, ${ASYNC_COMMIT} AS async`;

/**
 * Stores a decision's changes, and the checkpoint when given, in one statement (inside `sql`'s transaction
 * when it is one), deleting the `sent` intents from the outbox with it. Returns the outbox ids of its
 * intents, in their order (ids are drawn in that order). They are sorted as numbers before they become text:
 * `SELECT id::text ... ORDER BY id` sorts by the text output column, so 10 came before 9 and a fresh intent
 * carried another row's id (its send then deleted the wrong row; a crash test caught it).
 */
export async function writeChanges(sql: SqlTx, workflow: string, c: Changes, position: bigint | null, sent: string[] = []): Promise<string[]> {
  const timers = [...c.timers.values()];
  const { rows } = await sql.query<{ ids: string[] }>({ name: 'spawnpoint_workflow_write', text: WRITE_SQL }, [
    workflow,
    JSON.stringify([...c.states].map(([k, s]) => ({ k, s }))),
    JSON.stringify(timers.filter((t) => !t.set).map((t) => ({ k: t.key, id: t.id }))),
    JSON.stringify(timers.filter((t) => t.set).map((t) => ({ k: t.key, id: t.id, at: t.set!.at, e: t.set!.event }))),
    JSON.stringify(c.intents.map((i) => ({ k: i.key, ik: i.intent.key, i: i.intent }))),
    checkpointName(workflow), position === null ? null : String(position),
    JSON.stringify(sent),
  ]);
  return rows[0].ids;
}

export interface DueTimer { key: string; id: string; event: DomainEvent }

/** Due timers, locked for this transaction (another runner skips them). */
export async function takeDueTimers(sql: SqlTx, workflow: string, now: Date, limit: number): Promise<DueTimer[]> {
  const { rows } = await sql.query<DueTimer>(
    `SELECT key, id, event FROM workflow_timers WHERE workflow = $1 AND due_at <= $2
      ORDER BY due_at, key, id LIMIT $3 FOR UPDATE SKIP LOCKED`, [workflow, now, limit]);
  return rows;
}

export interface PendingIntent { id: string; key: string; intent: CommandIntent; attempts: number; due: boolean }

/**
 * The outbox in order, but for the intents `known` (those the runner holds already: queued, being sent, or
 * sent and not yet deleted): a busy outbox is mostly those, and reading them again cost more than the rest.
 */
export async function pendingIntents(pool: Pool, workflow: string, now: Date, limit: number, known: Iterable<string> = []): Promise<PendingIntent[]> {
  const { rows } = await pool.query<PendingIntent>({
    name: 'spawnpoint_workflow_pending',
    text: `SELECT id::text, key, intent, attempts, (next_attempt_at IS NULL OR next_attempt_at <= $2) AS due FROM workflow_intents
      WHERE workflow = $1 AND failed_at IS NULL AND id <> ALL($4::bigint[]) ORDER BY workflow_intents.id LIMIT $3`,
    values: [workflow, now, limit, [...known]],
  });
  return rows;
}

/** Deletes sent intents (committed asynchronously: one lost to a crash is sent again, with its key). */
export async function intentsDone(sql: SqlTx, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await sql.query({
    name: 'spawnpoint_workflow_intents_done',
    text: `WITH gone AS (DELETE FROM workflow_intents WHERE id = ANY($1::bigint[]) RETURNING 1) SELECT count(*) AS n, ${ASYNC_COMMIT} AS async FROM gone`,
  }, [ids]);
}

/** A failed dispatch: tried again at `retryAt`, or given up (`retryAt` null) and kept with its error. */
export async function intentFailed(pool: Pool, id: string, error: string, retryAt: Date | null): Promise<void> {
  await pool.query(
    `UPDATE workflow_intents SET attempts = attempts + 1, last_error = $2,
       next_attempt_at = COALESCE($3, next_attempt_at), failed_at = CASE WHEN $3::timestamptz IS NULL THEN now() ELSE NULL END
     WHERE id = $1`, [id, error, retryAt]);
}
