// A catch-up subscription on PostgreSQL: reads pages after the last delivered position, then sleeps
// until the store's notifier reports an append (or the poll interval passes) and reads again.
import type { Pool } from 'pg';
import type { EventHandler, SubscribeOptions, Subscription } from '../event-store';
import { SubscriptionProgress } from '../subscription-progress';
import type { AppendNotifier } from './append-notifier';
import { lastPosition, readAllEvents } from './event-queries';

const PAGE_SIZE = 500;
const POLL_INTERVAL_MS = 1000;

export class PostgresSubscription implements Subscription {
  private readonly progress: SubscriptionProgress;
  private readonly categories?: string[];
  private readonly removeListener: () => Promise<void>;
  private readonly running: Promise<void>;
  private closed = false;
  private inHandler = false;
  /** A wake-up arrived while reading: read again before sleeping. */
  private woken = false;
  private sleepTimer?: NodeJS.Timeout;
  private endSleep?: () => void;

  constructor(
    private readonly pool: Pool,
    notifier: AppendNotifier,
    options: SubscribeOptions,
    private readonly handler: EventHandler,
    private readonly onError: (err: unknown) => void,
    private readonly onClosed: () => void,
  ) {
    this.progress = new SubscriptionProgress(options.fromPosition ?? 0n);
    this.categories = options.categories;
    this.removeListener = notifier.add((position) => {
      if (position === undefined || position > this.progress.position) this.wake();
    });
    this.running = this.run();
  }

  async caughtUp(): Promise<void> {
    const target = await lastPosition(this.pool, this.categories);
    const reached = this.progress.waitFor(target);
    this.wake();
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
    await this.removeListener();
    this.onClosed();
  }

  private async run(): Promise<void> {
    while (!this.closed) {
      this.woken = false;
      let page;
      try {
        page = await readAllEvents(this.pool, {
          fromPosition: this.progress.position,
          categories: this.categories,
          limit: PAGE_SIZE,
        });
      } catch {
        // The database may be restarting: nothing was delivered, so try again on the next poll.
        await this.sleep();
        continue;
      }
      for (const event of page) {
        if (this.closed) return;
        try {
          this.inHandler = true;
          await this.handler(event);
        } catch (err) {
          this.fail(err);
          return;
        } finally {
          this.inHandler = false;
        }
        this.progress.advance(event.position);
      }
      if (page.length < PAGE_SIZE && !this.woken) await this.sleep();
    }
  }

  /** Handler errors stop the subscription at the failed event, so a resubscription redelivers it. */
  private fail(err: unknown): void {
    this.closed = true;
    this.progress.stop(err);
    void this.removeListener().finally(this.onClosed);
    this.onError(err);
  }

  private sleep(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.endSleep = resolve;
      this.sleepTimer = setTimeout(resolve, POLL_INTERVAL_MS);
    });
  }

  private wake(): void {
    this.woken = true;
    clearTimeout(this.sleepTimer);
    this.endSleep?.();
    this.endSleep = undefined;
  }
}
