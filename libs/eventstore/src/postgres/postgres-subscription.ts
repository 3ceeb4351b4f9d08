// A catch-up subscription on PostgreSQL: reads pages after the last delivered position on its own
// until it is caught up, then joins the store's live tail, which reads new events once for all
// caught-up subscriptions and queues the wanted ones here. If it falls too far behind the tail, it
// leaves it and reads on its own again.
import type { Pool } from 'pg';
import { categoryOf, EventHandler, RecordedEvent, SubscribeOptions, Subscription } from '../event-store';
import { SubscriptionProgress } from '../subscription-progress';
import { lastPosition, readAllEvents } from './event-queries';
import { LiveTail, PAGE_SIZE, POLL_INTERVAL_MS, TailMember } from './live-tail';

/** Queued events beyond this mean the handler can't keep up: read on its own instead of buffering. */
const MAX_QUEUED = 2 * PAGE_SIZE;

export class PostgresSubscription implements Subscription, TailMember {
  readonly categories?: string[];
  private readonly wanted?: Set<string>;
  private readonly progress: SubscriptionProgress;
  private readonly running: Promise<void>;
  /** See TailMember.cursor; only meaningful while live. */
  cursor = 0n;
  private live = false;
  private queue: RecordedEvent[] = [];
  private closed = false;
  private inHandler = false;
  /** A wake-up arrived while busy: look again before sleeping. */
  private woken = false;
  private sleepTimer?: NodeJS.Timeout;
  private endSleep?: () => void;

  constructor(
    private readonly pool: Pool,
    private readonly tail: LiveTail,
    options: SubscribeOptions,
    private readonly handler: EventHandler,
    private readonly onError: (err: unknown) => void,
    private readonly onClosed: () => void,
  ) {
    this.progress = new SubscriptionProgress(options.fromPosition ?? 0n);
    this.categories = options.categories?.length ? options.categories : undefined;
    this.wanted = this.categories && new Set(this.categories);
    this.running = this.run();
  }

  async caughtUp(): Promise<void> {
    const target = await lastPosition(this.pool, this.categories);
    const reached = this.progress.waitFor(target);
    if (this.live) this.tail.wake();
    else this.wake();
    return reached;
  }

  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.progress.stop(new Error('subscription closed'));
      this.wake();
    }
    // A handler closing its own subscription must not wait for itself to return.
    if (!this.inHandler) await this.running;
    await this.tail.leave(this);
    this.onClosed();
  }

  /** Called by the tail: queue the wanted events it has not had yet. */
  offer(events: RecordedEvent[], last: bigint | undefined): void {
    if (this.closed || !this.live) return;
    for (const event of events) {
      if (event.position > this.cursor && (!this.wanted || this.wanted.has(categoryOf(event.streamId)))) {
        this.queue.push(event);
      }
    }
    if (last !== undefined && last > this.cursor) this.cursor = last;
    if (this.queue.length > MAX_QUEUED) {
      // Lagging: drop the queue and catch up on our own from what was delivered; the others go on.
      this.live = false;
      this.queue = [];
      void this.tail.leave(this);
    }
    if (this.queue.length > 0 || !this.live) this.wake();
  }

  private async run(): Promise<void> {
    while (!this.closed) {
      this.woken = false;
      if (!this.live) {
        if (!(await this.readOnOwn())) return;
        continue;
      }
      const event = this.queue.shift();
      if (!event) {
        // The tail wakes us (it polls); so do close() and a fallback to reading on our own.
        if (!this.woken) await this.sleep();
        continue;
      }
      if (!(await this.deliver(event))) return;
    }
  }

  /** Reads and delivers one page; joins the tail when that page showed we are caught up. False: stopped. */
  private async readOnOwn(): Promise<boolean> {
    let head: bigint;
    let page: RecordedEvent[];
    try {
      // Head first: a short page then holds every wanted event up to `head` (positions are in commit order).
      head = await lastPosition(this.pool);
      page = await readAllEvents(this.pool, {
        fromPosition: this.progress.position,
        categories: this.categories,
        limit: PAGE_SIZE,
      });
    } catch {
      // The database may be restarting: nothing was delivered, so try again on the next poll.
      await this.sleep(POLL_INTERVAL_MS);
      return true;
    }
    for (const event of page) if (!(await this.deliver(event))) return false;
    if (page.length < PAGE_SIZE && !this.closed) {
      // Caught up: the tail takes over after `head` (or after our last event, if newer). The cursor
      // may be behind the tail's reads: it then reads from here again, so nothing is missed.
      this.cursor = head > this.progress.position ? head : this.progress.position;
      this.live = true;
      this.tail.join(this);
    }
    return true;
  }

  /** Handler errors stop the subscription at the failed event, so a resubscription redelivers it. */
  private async deliver(event: RecordedEvent): Promise<boolean> {
    if (this.closed) return false;
    try {
      this.inHandler = true;
      await this.handler(event);
    } catch (err) {
      this.fail(err);
      return false;
    } finally {
      this.inHandler = false;
    }
    this.progress.advance(event.position);
    return true;
  }

  private fail(err: unknown): void {
    this.closed = true;
    this.live = false;
    this.queue = [];
    this.progress.stop(err);
    void this.tail.leave(this).finally(this.onClosed);
    this.onError(err);
  }

  private sleep(timeoutMs?: number): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.endSleep = resolve;
      if (timeoutMs !== undefined) this.sleepTimer = setTimeout(resolve, timeoutMs);
    });
  }

  private wake(): void {
    this.woken = true;
    clearTimeout(this.sleepTimer);
    this.endSleep?.();
    this.endSleep = undefined;
  }
}
