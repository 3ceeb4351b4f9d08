// The runner core that projections and workflows share: a subscription from a checkpoint, events queued
// while a batch runs (the subscription held past HIGH_WATER), batches of up to MAX_BATCH, and the fault
// rules. One event never stops a runner: a batch that fails for a reason other than the database is
// handled again one event at a time; one that still fails alone is retried with backoff, then parked (the
// policy stores it with its error and moves the checkpoint past it) and skipped. A database failure parks
// nothing: what is pending is dropped and the runner subscribes again from its checkpoint after a pause.
// What a batch does, where a subscription starts and how an event is parked are the policy's
// (projection-runner.ts, workflow-runner.ts).
import { EventStore, RecordedEvent, Subscription } from '@spawnpoint/eventstore';
import { isInfrastructureError } from '@spawnpoint/messaging';
import { logger, type Log } from '@spawnpoint/logging';
import { storableError } from '../projections/parked-events';

const MAX_BATCH = 500;
/** Past this many pending events the subscription waits (catch-up over a long history stays bounded). */
const HIGH_WATER = 5_000;

export interface FeedPolicy {
  /** Who runs, for log lines: `projection servers`, `workflow launches`; `component`: their log component. */
  readonly label: string;
  readonly component: 'projections' | 'workflows';
  readonly categories: readonly string[];
  /** Where a subscription starts; the policy drops what it kept of the last one. */
  from(): Promise<bigint>;
  /** Handles a batch; throws when it cannot (a database failure subscribes again, anything else isolates the batch). */
  batch(events: RecordedEvent[]): Promise<void>;
  /** Handles one event of a failed batch, alone. */
  alone(event: RecordedEvent): Promise<void>;
  /** The database answers (asked before parking: a database failing in a way not recognised must not get an event parked). */
  healthy(): Promise<void>;
  /** Said after a parked event's log line: what an operator can do about it. */
  readonly parkedHint?: string;
  /** Stores the event with its error and moves the checkpoint past it, in one transaction. */
  park(event: RecordedEvent, error: string, attempts: number, firstFailedAt: Date): Promise<void>;
  /** The events at the head of the queue are done: handled, or parked (`handled` false); `alone`: one of an isolated batch. */
  done?(events: RecordedEvent[], handled: boolean, alone: boolean): void;
  /** An event was queued. */
  queued?(event: RecordedEvent): void;
  /** Before each batch (a projection waits out its minimum interval). */
  beforeBatch?(): Promise<void>;
  /** What was decided or applied in memory may not have been stored: drop it. */
  reset?(): void;
  /** Whether to subscribe again after a failure (a workflow that lost its lead does not). */
  resubscribe?(): boolean;
  /** Runs each pass over the queue (a workflow's chain of state changes, so timers never interleave). */
  serial?(pass: () => Promise<void>): Promise<void>;
  /** After each pass over the queue. */
  passed?(): void;
}

export interface FeedOptions {
  /** Attempts at an event that fails alone before it is parked. */
  poisonAttempts: number;
  /** Wait before the second attempt, doubling after each. */
  poisonBackoffMs: number;
  /** After a database failure: subscribe again after this long, doubling up to maxRetryMs while it lasts. */
  retryMs: number;
  maxRetryMs: number;
}

export class EventFeed {
  private subscription: Subscription | null = null;
  /** Bumped on every (re)subscription and close, so a failed generation's leftovers are ignored. */
  private generation = 0;
  private queue: RecordedEvent[] = [];
  private flushing: Promise<void> | null = null;
  /** Failed subscriptions in a row (the retry delay grows with them). */
  private failures = 0;
  private stopped = false;
  /** An exclusive task waits: a pass ends after its current batch instead of running on under load. */
  private yielding = false;
  /** Ends a backoff early when the feed stops. */
  private wakeSleeper: (() => void) | null = null;

  private readonly log: Log;

  constructor(private readonly store: EventStore, private readonly policy: FeedPolicy, private readonly options: FeedOptions) {
    this.log = logger(policy.component);
  }

  /** Events queued and not yet handled, oldest first. */
  get pending(): readonly RecordedEvent[] {
    return this.queue;
  }

  get subscribed(): boolean {
    return this.subscription !== null;
  }

  async subscribe(): Promise<void> {
    const from = await this.policy.from();
    this.queue = [];
    const generation = ++this.generation;
    this.subscription = this.store.subscribeToAll({ fromPosition: from, categories: [...this.policy.categories] }, (event) => {
      if (generation !== this.generation) return;
      this.queue.push(event);
      this.policy.queued?.(event);
      const flushing = this.flush();
      // Backpressure: hold the subscription while too much is waiting.
      if (this.queue.length >= HIGH_WATER) return flushing;
    }, (err) => this.fail(generation, err));
  }

  /** Stops reading (what is queued is dropped) until subscribe() is called again. */
  close(): void {
    this.generation++;
    this.queue = [];
    void this.subscription?.close().catch(() => undefined);
    this.subscription = null;
  }

  /** Resolves when the subscription has delivered every event committed before the call. */
  async caughtUp(): Promise<void> {
    await this.subscription?.caughtUp();
  }

  /** Resolves once every queued event is handled. */
  async idle(): Promise<void> {
    while (this.flushing || this.queue.length > 0) await (this.flushing ?? this.flush());
  }

  /** Runs `task` while no batch runs; events that arrive meanwhile wait for it. */
  async exclusive<T>(task: () => Promise<T>): Promise<T> {
    this.yielding = true;
    while (this.flushing) await this.flushing.catch(() => undefined);
    let release!: () => void;
    this.flushing = new Promise<void>((resolve) => (release = resolve));
    try {
      return await task();
    } finally {
      this.yielding = false;
      this.flushing = null;
      release();
      if (this.queue.length > 0) void this.flush();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeSleeper?.();
    await this.subscription?.close().catch(() => undefined);
    await this.flushing?.catch(() => undefined);
  }

  private flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    // The generation is the one current when the pass begins (a serial pass may wait behind other work).
    const pass = async () => {
      const generation = this.generation;
      try {
        await this.pass(generation);
      } catch (err) {
        this.fail(generation, err);
      }
    };
    this.flushing = (this.policy.serial ? this.policy.serial(pass) : pass()).finally(() => {
      this.flushing = null;
      this.policy.passed?.();
      // An event queued after the pass's last look (a batch that needed no I/O ends within microtasks)
      // found a pass still running and started none: it would wait for the next event.
      if (this.queue.length > 0 && !this.stopped && !this.yielding) void this.flush();
    });
    return this.flushing;
  }

  private async pass(generation: number): Promise<void> {
    while (this.queue.length > 0 && generation === this.generation && !this.stopped && !this.yielding) {
      await this.policy.beforeBatch?.();
      if (generation !== this.generation || this.stopped) return;
      const batch = this.queue.slice(0, MAX_BATCH);
      try {
        await this.policy.batch(batch);
      } catch (err) {
        if (isInfrastructureError(err)) throw err;
        // Some event of the batch fails: find it by handling them one at a time.
        this.log.error(`${this.policy.label}: a batch of ${batch.length} event(s) failed; handling them one at a time: ${(err as Error).message ?? String(err)}`);
        this.policy.reset?.();
        await this.isolate(batch, generation);
        continue;
      }
      if (generation !== this.generation) return;
      this.advance(batch, true, false);
    }
  }

  private advance(events: RecordedEvent[], handled: boolean, alone: boolean): void {
    this.queue.splice(0, events.length);
    this.failures = 0;
    this.policy.done?.(events, handled, alone);
  }

  private async isolate(batch: RecordedEvent[], generation: number): Promise<void> {
    for (const event of batch) {
      const handled = await this.alone(event, generation);
      if (generation !== this.generation) return;
      this.advance([event], handled, true);
    }
  }

  /** true: handled; false: parked. Throws on a database failure (the caller subscribes again from the checkpoint). */
  private async alone(event: RecordedEvent, generation: number): Promise<boolean> {
    const { label } = this.policy;
    let firstFailedAt: Date | null = null;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.policy.alone(event);
        return true;
      } catch (err) {
        if (isInfrastructureError(err)) throw err;
        this.policy.reset?.();
        firstFailedAt ??= new Date();
        const attempts = this.options.poisonAttempts;
        if (attempt >= attempts) {
          await this.policy.healthy();
          const error = storableError(err);
          await this.policy.park(event, error, attempt, firstFailedAt);
          this.log.error({ project_id: event.metadata?.projectId }, `${label}: PARKED event ${event.id} (${event.type}) at position ${event.position} of ${event.streamId} after ${attempt} attempts; `
            + `it moves on.${this.policy.parkedHint ? ` ${this.policy.parkedHint}` : ''} Error: ${error}`);
          return false;
        }
        this.log.error({ project_id: event.metadata?.projectId }, `${label}: event ${event.type} at position ${event.position} (${event.streamId}) failed, attempt ${attempt} of ${attempts}: ${(err as Error).message ?? String(err)}`);
        await this.sleep(this.options.poisonBackoffMs * 2 ** (attempt - 1));
        if (generation !== this.generation || this.stopped) throw new Error(`${label} stopped while retrying an event`);
      }
    }
  }

  /** A database (or subscription) failure: drop what is queued and read again from the checkpoint, sooner at first. */
  private fail(generation: number, err: unknown): void {
    if (generation !== this.generation || this.stopped) return;
    this.generation++;
    this.queue = [];
    this.policy.reset?.();
    const delay = Math.min(this.options.retryMs * 2 ** this.failures, this.options.maxRetryMs);
    this.failures++;
    this.log.error({ err }, `${this.policy.label} failed; resubscribing from its checkpoint in ${delay} ms`);
    const old = this.subscription;
    this.subscription = null;
    setTimeout(() => {
      void (async () => {
        await old?.close().catch(() => undefined);
        if (this.stopped || this.policy.resubscribe?.() === false) return;
        try {
          await this.subscribe();
        } catch (e) {
          this.fail(this.generation, e);
        }
      })();
    }, delay).unref();
  }

  /** Sleeps, but a stopping feed does not wait it out. */
  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.wakeSleeper === done) this.wakeSleeper = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeSleeper = done;
    });
  }
}
