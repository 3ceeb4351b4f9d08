// Runs projections: each subscribes to the store from its checkpoint and applies events to the read
// models together with the checkpoint in one transaction, so a crash never applies an event twice or
// skips one. Events that arrive while a transaction runs are applied together in the next one (one
// commit for many events: this is what lets read models keep up with bursts); under a steady stream a
// projection commits at most every `minBatchIntervalMs` unless a reply waits for it. waitFor(position)
// is how a command's reply waits for its own write to be readable.
//
// One event never stops a projection, and a database failure parks nothing: the subscription, batches and
// fault rules are the runner core's (runner/event-feed.ts); a parked event's position counts as reached.
// An admin replay re-applies a parked event (replay()).
import { conflict, notFound } from '@spawnpoint/domain';
import { categoryOf, EventStore, RecordedEvent } from '@spawnpoint/eventstore';
import { isInfrastructureError, RemoteError } from '@spawnpoint/messaging';
import { logger } from '@spawnpoint/logging';
import { inPgTransaction, SqlTx } from './pg-transaction';

export type { SqlTx };
import { readModelsPool, ReadModels } from '@spawnpoint/read-models';
import { escapeLiteral, type PoolClient, type QueryResultRow } from 'pg';
import { inProjectionSpans } from './projection-spans';
import { EventFeed } from '../runner/event-feed';
import { findParked, insertParked, parkedPositions, recordReplayFailure, registerProjection, storableError } from './parked-events';

const log = logger('projections');

/**
 * The read models did not catch up with a write in time: the database is unreachable or slow (an outage), so
 * the request answers 503 with Retry-After (toErrorBody), never 500; the write itself is stored, and a retry
 * with the same command id answers it.
 */
export class ReadModelBehind extends Error {
  override readonly name = 'ReadModelBehind';
}

export type Tx = Parameters<Parameters<ReadModels['$transaction']>[0]>[0];


/**
 * A read model. Exactly one of: `apply` (Prisma, per event), `applyBatch` (Prisma, per batch) or
 * `applySql` (plain SQL on a pg connection, per batch). Hot read models use `applySql`: its transaction
 * costs about a sixth of the CPU of a Prisma interactive transaction (docs/adr/0005-plain-sql-hot-read-models.md).
 */
export interface Projection {
  name: string;
  categories: string[];
  apply?(event: RecordedEvent, tx: Tx): Promise<void>;
  /** Instead of `apply` per event: a whole batch at once (e.g. one read and one write per batch). */
  applyBatch?(events: RecordedEvent[], tx: Tx): Promise<void>;
  /** May return what to do once the transaction has committed (e.g. keep the rows it wrote in memory). */
  applySql?(events: RecordedEvent[], sql: SqlTx): Promise<void | (() => void)>;
  /** The runner is about to read again from the checkpoint after a failed batch: drop in-memory copies. */
  reset?(): void;
  /** After the event's transaction committed: e.g. invalidate an in-memory copy of the rows. */
  applied?(event: RecordedEvent): void;
  /** This projection's own minBatchIntervalMs (the runner's option), e.g. 0 where latency matters more than fewer transactions. */
  minBatchIntervalMs?: number;
  /**
   * Events that clients wait to see (a server turning running, say): a batch holding one commits without
   * waiting out the rest of the interval, as when a reply waits for it.
   */
  urgent?(event: RecordedEvent): boolean;
}

const MAX_BATCH = 500;
const CHECKPOINT_SQL = `INSERT INTO checkpoints (name, position, updated_at) VALUES ($1, $2, now())
  ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position, updated_at = EXCLUDED.updated_at`;
/**
 * The checkpoint and the COMMIT in one round trip: a simple query of two statements (a failing INSERT skips
 * the COMMIT; the caller rolls back). Its values are literals: the projection's name, escaped, and digits.
 */
const checkpointAndCommit = (name: string, position: bigint) =>
  `INSERT INTO checkpoints (name, position, updated_at) VALUES (${escapeLiteral(name)}, ${BigInt(position).toString()}, now())
  ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position, updated_at = EXCLUDED.updated_at; COMMIT`;
/**
 * A plain-SQL batch's transaction commits without waiting for the WAL flush (one round trip, as BEGIN alone
 * was): a read model is derived from the events with its checkpoint, so a batch a PostgreSQL crash loses is
 * applied again from the older checkpoint. ADR-0018.
 */
const BEGIN_DERIVED = 'BEGIN; SET LOCAL synchronous_commit TO off';
// Saved outside a batch, beside one that may have saved a later position: never moves it back.
const DEFERRED_CHECKPOINT_SQL = `INSERT INTO checkpoints (name, position, updated_at) VALUES ($1, $2, now())
  ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position, updated_at = EXCLUDED.updated_at WHERE checkpoints.position < EXCLUDED.position`;
/** A checkpoint past batches that wrote nothing is saved this long after them (or with the next write, or at stop). */
const DEFERRED_CHECKPOINT_MS = 1_000;
/** After a database failure: resubscribe after 1 s, doubling up to 15 s while it lasts. */
const RETRY_MS = 1_000;
const MAX_RETRY_MS = 15_000;

interface Running {
  projection: Projection;
  feed: EventFeed;
  /** Applied and committed up to here. */
  position: bigint;
  /** The checkpoint as stored (behind `position` after batches that wrote nothing, until saved). */
  saved: bigint;
  saveTimer: NodeJS.Timeout | null;
  /** Whether the last batch wrote (its checkpoint then went with it). */
  wrote: boolean;
  /** When the last batch committed (ms, monotonic). */
  lastCommitAt: number;
  /** Ends a linger early (a reply is waiting for this read model, or the runner stops). */
  hurry: (() => void) | null;
  /** Subscribed before: a resubscription resumes from where this process got to (from()). */
  subscribed: boolean;
}

export interface ProjectionRunnerOptions {
  /**
   * Under a steady stream of events, at most one batch per projection per this many ms unless a reply
   * waits for the read model (waitFor): fewer, larger transactions. An event after a quiet spell is
   * applied at once. Default 100; 0 applies every batch as soon as the previous one committed.
   */
  minBatchIntervalMs?: number;
  /** Attempts at an event that fails on its own before it is parked. Default 5. */
  poisonAttempts?: number;
  /** Wait before the second attempt, doubling after each. Default 100 ms (5 attempts take ~1.5 s). */
  poisonBackoffMs?: number;
}

/** A replayed parked event: what was applied again. */
export interface ReplayResult {
  id: string;
  projection: string;
  position: string;
  /** Events of its stream applied again with it (the later ones, already applied, so the row ends current). */
  reapplied: number;
}

export class ProjectionRunner {
  private running: Running[] = [];
  private waiters: { position: bigint; category: string; resolve: () => void }[] = [];
  private stopped = false;
  /** Catching up at start never lingers. */
  private live = false;

  private readonly minBatchIntervalMs: number;
  private readonly poisonAttempts: number;
  private readonly poisonBackoffMs: number;

  constructor(
    private readonly store: EventStore,
    private readonly db: ReadModels,
    private readonly projections: Projection[],
    options: ProjectionRunnerOptions = {},
  ) {
    this.minBatchIntervalMs = options.minBatchIntervalMs ?? 100;
    this.poisonAttempts = Math.max(1, options.poisonAttempts ?? 5);
    this.poisonBackoffMs = options.poisonBackoffMs ?? 100;
  }

  /** The names of the projections this runner runs (each may have parked events to replay). */
  get names(): string[] {
    return this.projections.map((p) => p.name);
  }

  async start(): Promise<void> {
    for (const projection of this.projections) {
      await registerProjection(this.db, projection.name, projection.categories);
      // The feed's hooks ask for the entry when they run, once it exists.
      const entry: Running = {
        projection, position: 0n, saved: 0n, saveTimer: null, wrote: false, lastCommitAt: -Infinity, hurry: null, subscribed: false, feed: this.feed(projection, () => entry),
      };
      this.running.push(entry);
      await entry.feed.subscribe();
    }
    await Promise.all(this.running.map(async (r) => {
      await r.feed.caughtUp();
      await r.feed.idle();
    }));
    this.live = true;
  }

  /** Resolves once every projection over `streamId`'s category has applied `position`. */
  waitFor(position: bigint | null, streamId: string, timeoutMs = 10_000): Promise<void> {
    const category = categoryOf(streamId);
    if (position === null || this.reached(position, category)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new ReadModelBehind(`read models did not reach position ${position} within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = { position, category, resolve: () => { clearTimeout(timer); resolve(); } };
      this.waiters.push(waiter);
      for (const r of this.running) if (r.projection.categories.includes(category)) r.hurry?.();
    });
  }

  /** Resolves once the projections over `streamId`'s category have applied every event of it committed before the call. */
  async waitForHead(streamId: string): Promise<void> {
    await this.waitFor(await this.store.headPosition([categoryOf(streamId)]), streamId);
  }

  /** Resolves once the projections over `streamId`'s category have applied every event already delivered to them. */
  settle(streamId: string): Promise<void> {
    const category = categoryOf(streamId);
    let last: bigint | null = null;
    for (const r of this.running) {
      const pending = r.projection.categories.includes(category) ? r.feed.pending[r.feed.pending.length - 1] : undefined;
      if (pending && (last === null || pending.position > last)) last = pending.position;
    }
    return this.waitFor(last, streamId);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const r of this.running) r.hurry?.();
    await Promise.all(this.running.map(async (r) => {
      await r.feed.stop();
      await this.saveDeferred(r);
    }));
    this.running = [];
  }

  /** The projection as a policy of the runner core: where it starts, how a batch and a parked event are stored. */
  private feed(projection: Projection, running: () => Running): EventFeed {
    return new EventFeed(this.store, {
      label: `projection ${projection.name}`,
      component: 'projections',
      parkedHint: 'Replay it with POST /api/admin/parked-events/{id}/replay once fixed.',
      categories: projection.categories,
      from: async () => {
        const entry = running();
        const cp = await this.db.checkpoint.findUnique({ where: { name: projection.name } });
        const stored = cp?.position ?? 0n;
        // Replicas share the checkpoint: after a failure another replica may have moved it past events this one
        // never applied, and what a projection keeps in memory from them (`applied`: the matcher's queue book)
        // would miss them for good (lobbies queued forever after an outage). So a resubscription resumes from
        // where this process got to; applying an event again is idempotent (every replica applies every event).
        entry.position = entry.subscribed && entry.position < stored ? entry.position : stored;
        entry.saved = stored;
        entry.subscribed = true;
        return entry.position;
      },
      queued: (event) => {
        if (projection.urgent?.(event)) running().hurry?.();
      },
      beforeBatch: () => this.linger(running()),
      batch: async (events) => {
        running().wrote = await this.applyBatch(projection, events, events[events.length - 1].position);
      },
      alone: async (event) => {
        await this.applyBatch(projection, [event], event.position);
      },
      healthy: async () => {
        await this.db.$queryRaw`SELECT 1`;
      },
      park: (event, error, attempts, firstFailedAt) => this.park(projection, event, error, attempts, firstFailedAt),
      done: (events, handled, alone) => {
        const entry = running();
        this.advance(entry, events, handled);
        // One of an isolated batch: saved already unless it wrote nothing; the deferred save never moves it back.
        this.checkpointed(entry, alone ? false : entry.wrote);
      },
      reset: () => projection.reset?.(),
    }, { poisonAttempts: this.poisonAttempts, poisonBackoffMs: this.poisonBackoffMs, retryMs: RETRY_MS, maxRetryMs: MAX_RETRY_MS });
  }

  /** After a batch: saved with it (`wrote`), or to be saved a moment later. */
  private checkpointed(entry: Running, wrote: boolean): void {
    if (wrote) {
      if (entry.position > entry.saved) entry.saved = entry.position;
      return;
    }
    entry.saveTimer ??= setTimeout(() => {
      entry.saveTimer = null;
      void this.saveDeferred(entry);
    }, DEFERRED_CHECKPOINT_MS);
  }

  /** Stores a checkpoint held back by batches that wrote nothing (a failure leaves it for the next one: a restart then reads a few events again, which is harmless). */
  private async saveDeferred(entry: Running): Promise<void> {
    if (entry.saveTimer) clearTimeout(entry.saveTimer);
    entry.saveTimer = null;
    const position = entry.position;
    if (position <= entry.saved) return;
    try {
      await readModelsPool(this.db).query({ name: 'spawnpoint_checkpoint_defer', text: DEFERRED_CHECKPOINT_SQL, values: [entry.projection.name, String(position)] });
      if (position > entry.saved) entry.saved = position;
    } catch (err) {
      if (!this.stopped) log.error(`projection ${entry.projection.name}: saving its checkpoint failed (kept for the next batch): ${(err as Error).message ?? String(err)}`);
    }
  }

  /** The events at the head of the queue are committed (applied, or parked when `applied` is false). */
  private advance(entry: Running, events: RecordedEvent[], applied: boolean): void {
    entry.position = events[events.length - 1].position;
    entry.lastCommitAt = performance.now();
    if (applied) for (const event of events) entry.projection.applied?.(event);
    this.wake();
  }

  /** Stores the event with its error and moves the checkpoint past it, in one transaction. */
  private async park(projection: Projection, event: RecordedEvent, error: string, attempts: number, firstFailedAt: Date): Promise<void> {
    await this.inTransaction(async (sql) => {
      await insertParked(sql, projection.name, event, error, attempts, firstFailedAt);
      await sql.query({ name: 'spawnpoint_checkpoint_save', text: CHECKPOINT_SQL }, [projection.name, String(event.position)]);
    });
  }

  private inTransaction(fn: (sql: SqlTx) => Promise<void>): Promise<void> {
    return inPgTransaction(readModelsPool(this.db), fn);
  }


  /**
   * Re-applies a parked event to its projection and removes it from the park, in one transaction. The
   * later events of its stream that the projection already applied are applied again after it (every
   * projection is idempotent), so the row ends as current as it was, not rolled back to the parked event.
   * Other parked events of the stream stay parked. Runs between batches, never beside one.
   */
  async replay(id: string): Promise<ReplayResult> {
    const row = await findParked(this.db, id);
    const entry = row && this.running.find((r) => r.projection.name === row.projection);
    if (!row || !entry) throw notFound('parked event');
    const position = BigInt(row.position);
    entry.hurry?.();
    return entry.feed.exclusive(async () => {
      const others = await parkedPositions(this.db, row.projection, row.stream_id);
      const { events } = await this.store.readStream(row.stream_id);
      const replayed = events.filter((e) => e.position === position || (e.position > position && e.position <= entry.position && !others.has(e.position)));
      if (replayed[0]?.position !== position) throw conflict(`parked event at position ${position} is no longer in stream ${row.stream_id}`);
      try {
        await this.applyBatch(entry.projection, replayed, null, (sql) => sql.query('DELETE FROM parked_events WHERE id = $1', [row.id]).then(() => undefined));
      } catch (err) {
        entry.projection.reset?.();
        if (isInfrastructureError(err)) throw new RemoteError({ error: 'Read models unavailable; try again', status: 503, detail: storableError(err) });
        const error = storableError(err);
        await recordReplayFailure(this.db, row.id, error);
        throw conflict(`replay of parked event ${row.id} failed again: ${error}`);
      }
      for (const event of replayed) entry.projection.applied?.(event);
      log.info(`projection ${row.projection}: replayed parked event ${row.id} at position ${position} (${replayed.length} event(s) applied)`);
      return { id: row.id, projection: row.projection, position: row.position, reapplied: replayed.length - 1 };
    });
  }

  /** Waits out the rest of the minimum batch interval, unless a full batch is pending or a reply waits. */
  private async linger(entry: Running): Promise<void> {
    const rest = entry.lastCommitAt + (entry.projection.minBatchIntervalMs ?? this.minBatchIntervalMs) - performance.now();
    if (!this.live || rest <= 0 || entry.feed.pending.length >= MAX_BATCH) return;
    if (this.waiters.some((w) => entry.projection.categories.includes(w.category))) return;
    if (entry.projection.urgent && entry.feed.pending.some((e) => entry.projection.urgent!(e))) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        entry.hurry = null;
        resolve();
      };
      const timer = setTimeout(done, rest);
      entry.hurry = done;
    });
  }

  /**
   * The batch and the checkpoint in one transaction (no checkpoint when `position` is null: a replay
   * behind it). `also` runs last in the same transaction.
   */
  private applyBatch(projection: Projection, batch: RecordedEvent[], position: bigint | null, also?: (sql: SqlTx) => Promise<void>): Promise<boolean> {
    return inProjectionSpans(projection.name, batch, () => this.applyInTransaction(projection, batch, position, also));
  }

  private async applyInTransaction(projection: Projection, batch: RecordedEvent[], position: bigint | null, also?: (sql: SqlTx) => Promise<void>): Promise<boolean> {
    if (projection.applySql) {
      // The connection and the transaction open at the first statement: a batch that writes nothing
      // (events this read model ignores) costs no round trip, and its checkpoint is saved later.
      let client: PoolClient | null = null;
      const open = async (): Promise<PoolClient> => {
        if (!client) {
          const c = await readModelsPool(this.db).connect();
          try {
            await c.query(BEGIN_DERIVED);
          } catch (err) {
            c.release(err as Error);
            throw err;
          }
          client = c;
        }
        return client;
      };
      const lazy: SqlTx = {
        async query<R extends QueryResultRow>(query: string | { name?: string; text: string }, values?: unknown[]) {
          const c = await open();
          return typeof query === 'string' ? c.query<R>(query, values) : c.query<R>({ ...query, values });
        },
      };
      let unusable: Error | undefined;
      try {
        const committed = await projection.applySql(batch, lazy);
        if (!client && !also) {
          committed?.();
          return false;
        }
        const tx = await open();
        if (also) {
          if (position !== null) await tx.query({ name: 'spawnpoint_checkpoint_save', text: CHECKPOINT_SQL, values: [projection.name, String(position)] });
          await also(tx);
          await tx.query('COMMIT');
        } else {
          await tx.query(position === null ? 'COMMIT' : checkpointAndCommit(projection.name, position));
        }
        committed?.();
      } catch (err) {
        // A connection whose ROLLBACK fails is in an unknown state: it is dropped, not returned to the pool.
        const c = client as PoolClient | null;
        await c?.query('ROLLBACK').catch((e: Error) => (unusable = e));
        throw err;
      } finally {
        (client as PoolClient | null)?.release(unusable);
      }
      return true;
    }
    await this.db.$transaction(async (tx) => {
      if (projection.applyBatch) await projection.applyBatch(batch, tx);
      else if (projection.apply) for (const event of batch) await projection.apply(event, tx);
      if (position !== null) {
        await tx.$executeRaw`INSERT INTO checkpoints (name, position, updated_at) VALUES (${projection.name}, ${position}, now())
          ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position, updated_at = EXCLUDED.updated_at`;
      }
      await also?.({
        query: async (query, values = []) => ({ rows: [], rowCount: await tx.$executeRawUnsafe(typeof query === 'string' ? query : query.text, ...values) }),
      });
    }, { timeout: 60_000 });
    return true;
  }

  private reached(position: bigint, category: string): boolean {
    return this.running.every((r) => !r.projection.categories.includes(category) || r.position >= position);
  }

  private wake(): void {
    if (this.waiters.length === 0) return;
    const still = [];
    for (const w of this.waiters) {
      if (this.reached(w.position, w.category)) w.resolve();
      else still.push(w);
    }
    this.waiters = still;
  }
}
