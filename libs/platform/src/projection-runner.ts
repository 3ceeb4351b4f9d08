// Runs projections: each subscribes to the store from its checkpoint and applies events to the read
// models in one transaction with the checkpoint, so a crash never applies an event twice or skips it.
// waitFor(position) is how a command's reply waits for its own write to be readable.
import { categoryOf, EventStore, RecordedEvent, Subscription } from '@spawnpoint/eventstore';
import type { ReadModels } from '@spawnpoint/read-models';

export type Tx = Parameters<Parameters<ReadModels['$transaction']>[0]>[0];

export interface Projection {
  name: string;
  categories: string[];
  apply(event: RecordedEvent, tx: Tx): Promise<void>;
  /** After the event's transaction committed: e.g. invalidate an in-memory copy of the rows. */
  applied?(event: RecordedEvent): void;
}

interface Running {
  projection: Projection;
  subscription: Subscription;
  position: bigint;
  failed?: unknown;
}

export class ProjectionRunner {
  private running: Running[] = [];
  private waiters: { position: bigint; category: string; resolve: () => void }[] = [];

  constructor(private readonly store: EventStore, private readonly db: ReadModels, private readonly projections: Projection[]) {}

  async start(): Promise<void> {
    for (const projection of this.projections) {
      const cp = await this.db.checkpoint.findUnique({ where: { name: projection.name } });
      const entry: Running = { projection, position: cp?.position ?? 0n, subscription: undefined as unknown as Subscription };
      entry.subscription = this.store.subscribeToAll(
        { fromPosition: entry.position, categories: projection.categories },
        async (event) => {
          await this.db.$transaction(async (tx) => {
            await projection.apply(event, tx);
            await tx.checkpoint.upsert({
              where: { name: projection.name },
              create: { name: projection.name, position: event.position },
              update: { position: event.position },
            });
          });
          entry.position = event.position;
          projection.applied?.(event);
          this.wake();
        },
        (err) => {
          entry.failed = err;
          console.error(`projection ${projection.name} stopped:`, err);
        },
      );
      this.running.push(entry);
    }
    await Promise.all(this.running.map((r) => r.subscription.caughtUp()));
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
    });
  }

  health(): { ok: boolean; failed: string[] } {
    const failed = this.running.filter((r) => r.failed).map((r) => r.projection.name);
    return { ok: failed.length === 0, failed };
  }

  async stop(): Promise<void> {
    await Promise.all(this.running.map((r) => r.subscription.close()));
    this.running = [];
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
