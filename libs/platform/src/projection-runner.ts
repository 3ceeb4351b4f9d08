// Runs projections: each subscribes to the store from its checkpoint and applies events to the read
// models together with the checkpoint in one transaction, so a crash never applies an event twice or
// skips one. Events that arrive while a transaction runs are applied together in the next one (one
// commit for many events: this is what lets read models keep up with bursts); under a steady stream a
// projection commits at most every `minBatchIntervalMs` unless a reply waits for it. waitFor(position)
// is how a command's reply waits for its own write to be readable.
import { categoryOf, EventStore, RecordedEvent, Subscription } from '@spawnpoint/eventstore';
import { readModelsPool, ReadModels } from '@spawnpoint/read-models';

export type Tx = Parameters<Parameters<ReadModels['$transaction']>[0]>[0];

/** A pg connection inside the batch's transaction: plain SQL with `$1`… parameters; a `name` prepares it once per connection. */
export interface SqlTx {
  query<R = Record<string, unknown>>(
    query: string | { name?: string; text: string },
    values?: unknown[],
  ): Promise<{ rows: R[]; rowCount: number | null }>;
}

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
}

const MAX_BATCH = 500;
const CHECKPOINT_SQL = `INSERT INTO checkpoints (name, position, updated_at) VALUES ($1, $2, now())
  ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position, updated_at = EXCLUDED.updated_at`;
/** Past this many pending events the subscription waits (catch-up over a long history stays bounded). */
const HIGH_WATER = 5_000;
const RETRY_MS = 1_000;

interface Running {
  projection: Projection;
  subscription: Subscription | null;
  /** Applied and committed up to here. */
  position: bigint;
  pending: RecordedEvent[];
  flushing: Promise<void> | null;
  /** Bumped on every (re)subscription, so a failed generation's leftovers are ignored. */
  generation: number;
  /** When the last batch committed (ms, monotonic). */
  lastCommitAt: number;
  /** Ends a linger early (a reply is waiting for this read model, or the runner stops). */
  hurry: (() => void) | null;
}

export interface ProjectionRunnerOptions {
  /**
   * Under a steady stream of events, at most one batch per projection per this many ms unless a reply
   * waits for the read model (waitFor): fewer, larger transactions. An event after a quiet spell is
   * applied at once. Default 100; 0 applies every batch as soon as the previous one committed.
   */
  minBatchIntervalMs?: number;
}

export class ProjectionRunner {
  private running: Running[] = [];
  private waiters: { position: bigint; category: string; resolve: () => void }[] = [];
  private stopped = false;
  /** Catching up at start never lingers. */
  private live = false;

  private readonly minBatchIntervalMs: number;

  constructor(
    private readonly store: EventStore,
    private readonly db: ReadModels,
    private readonly projections: Projection[],
    options: ProjectionRunnerOptions = {},
  ) {
    this.minBatchIntervalMs = options.minBatchIntervalMs ?? 100;
  }

  async start(): Promise<void> {
    for (const projection of this.projections) {
      const entry: Running = { projection, subscription: null, position: 0n, pending: [], flushing: null, generation: 0, lastCommitAt: -Infinity, hurry: null };
      this.running.push(entry);
      await this.subscribe(entry);
    }
    await Promise.all(this.running.map(async (r) => {
      await r.subscription?.caughtUp();
      await this.idle(r);
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
        reject(new Error(`read models did not reach position ${position} within ${timeoutMs} ms`));
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
      const pending = r.projection.categories.includes(category) ? r.pending[r.pending.length - 1] : undefined;
      if (pending && (last === null || pending.position > last)) last = pending.position;
    }
    return this.waitFor(last, streamId);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const r of this.running) r.hurry?.();
    await Promise.all(this.running.map(async (r) => {
      await r.subscription?.close();
      await r.flushing?.catch(() => undefined);
    }));
    this.running = [];
  }

  private async subscribe(entry: Running): Promise<void> {
    const cp = await this.db.checkpoint.findUnique({ where: { name: entry.projection.name } });
    entry.position = cp?.position ?? 0n;
    entry.pending = [];
    const generation = ++entry.generation;
    entry.subscription = this.store.subscribeToAll(
      { fromPosition: entry.position, categories: entry.projection.categories },
      (event) => {
        if (generation !== entry.generation) return;
        entry.pending.push(event);
        const flushing = this.flush(entry);
        // Backpressure: hold the subscription while too much is waiting.
        if (entry.pending.length >= HIGH_WATER) return flushing;
      },
      (err) => this.fail(entry, generation, err),
    );
  }

  private flush(entry: Running): Promise<void> {
    entry.flushing ??= (async () => {
      const generation = entry.generation;
      try {
        while (entry.pending.length > 0 && generation === entry.generation && !this.stopped) {
          await this.linger(entry);
          if (generation !== entry.generation || this.stopped) return;
          const batch = entry.pending.slice(0, MAX_BATCH);
          const last = batch[batch.length - 1];
          await this.applyBatch(entry.projection, batch, last.position);
          if (generation !== entry.generation) return;
          entry.pending.splice(0, batch.length);
          entry.position = last.position;
          entry.lastCommitAt = performance.now();
          for (const event of batch) entry.projection.applied?.(event);
          this.wake();
        }
      } catch (err) {
        this.fail(entry, generation, err);
      } finally {
        entry.flushing = null;
      }
    })();
    return entry.flushing;
  }

  /** Waits out the rest of the minimum batch interval, unless a full batch is pending or a reply waits. */
  private async linger(entry: Running): Promise<void> {
    const rest = entry.lastCommitAt + this.minBatchIntervalMs - performance.now();
    if (!this.live || rest <= 0 || entry.pending.length >= MAX_BATCH) return;
    if (this.waiters.some((w) => entry.projection.categories.includes(w.category))) return;
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

  /** The batch and the checkpoint in one transaction. */
  private async applyBatch(projection: Projection, batch: RecordedEvent[], position: bigint): Promise<void> {
    if (projection.applySql) {
      const client = await readModelsPool(this.db).connect();
      let unusable: Error | undefined;
      try {
        await client.query('BEGIN');
        const committed = await projection.applySql(batch, client);
        await client.query({ name: 'spawnpoint_checkpoint_save', text: CHECKPOINT_SQL, values: [projection.name, String(position)] });
        await client.query('COMMIT');
        committed?.();
      } catch (err) {
        // A connection whose ROLLBACK fails is in an unknown state: it is dropped, not returned to the pool.
        await client.query('ROLLBACK').catch((e: Error) => (unusable = e));
        throw err;
      } finally {
        client.release(unusable);
      }
      return;
    }
    await this.db.$transaction(async (tx) => {
      if (projection.applyBatch) await projection.applyBatch(batch, tx);
      else if (projection.apply) for (const event of batch) await projection.apply(event, tx);
      await tx.$executeRaw`INSERT INTO checkpoints (name, position, updated_at) VALUES (${projection.name}, ${position}, now())
        ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position, updated_at = EXCLUDED.updated_at`;
    }, { timeout: 60_000 });
  }

  /** A failed batch is never skipped: drop what is pending and read again from the checkpoint. */
  private fail(entry: Running, generation: number, err: unknown): void {
    if (generation !== entry.generation || this.stopped) return;
    entry.generation++;
    entry.pending = [];
    entry.projection.reset?.();
    console.error(`projection ${entry.projection.name} failed; resubscribing from its checkpoint:`, err);
    const old = entry.subscription;
    setTimeout(() => {
      void (async () => {
        await old?.close().catch(() => undefined);
        if (this.stopped) return;
        try {
          await this.subscribe(entry);
        } catch (e) {
          this.fail(entry, entry.generation, e);
        }
      })();
    }, RETRY_MS).unref();
  }

  private async idle(entry: Running): Promise<void> {
    while (entry.flushing || entry.pending.length > 0) {
      await (entry.flushing ?? this.flush(entry));
    }
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
