// A catch-up subscription to $all on EventStoreDB. The server filters by stream prefix and pushes
// events; iterating the stream with for-await runs handlers one at a time, in order.
import {
  AllStreamSubscription,
  EventStoreDBClient,
  excludeSystemEvents,
  streamNameFilter,
} from '@eventstore/db-client';
import type { EventHandler, SubscribeOptions, Subscription } from '../event-store';
import { SubscriptionProgress } from '../subscription-progress';
import { fromEsdbEvent, inCategories, toEsdbPosition } from './esdb-mapping';

export class EventStoreDbSubscription implements Subscription {
  private readonly progress: SubscriptionProgress;
  private readonly stream: AllStreamSubscription;
  private readonly running: Promise<void>;
  private closed = false;
  private inHandler = false;

  constructor(
    client: EventStoreDBClient,
    private readonly options: SubscribeOptions,
    private readonly handler: EventHandler,
    private readonly onError: (err: unknown) => void,
    private readonly lastPosition: (categories?: string[]) => Promise<bigint>,
    private readonly onClosed: () => void,
  ) {
    this.progress = new SubscriptionProgress(options.fromPosition ?? 0n);
    const categories = options.categories;
    this.stream = client.subscribeToAll({
      fromPosition: toEsdbPosition(options.fromPosition),
      filter: categories?.length
        ? streamNameFilter({ prefixes: categories.map((c) => `${c}-`) })
        : excludeSystemEvents(),
    });
    this.running = this.run();
  }

  async caughtUp(): Promise<void> {
    // The last matching event, not the head: a filtered subscription never delivers other streams' events.
    return this.progress.waitFor(await this.lastPosition(this.options.categories));
  }

  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.progress.stop(new Error('subscription closed'));
      await this.stream.unsubscribe();
    }
    // A handler closing its own subscription must not wait for itself to return.
    if (!this.inHandler) await this.running;
    this.onClosed();
  }

  private async run(): Promise<void> {
    try {
      for await (const resolved of this.stream) {
        if (this.closed) return;
        const event = fromEsdbEvent(resolved);
        if (!event || !inCategories(event.streamId, this.options.categories)) continue;
        this.inHandler = true;
        try {
          await this.handler(event);
        } finally {
          this.inHandler = false;
        }
        this.progress.advance(event.position);
      }
    } catch (err) {
      // A handler error, or the server dropped the subscription (the client does not resubscribe):
      // either way stop at the last delivered event and let the owner resubscribe from its checkpoint.
      if (!this.closed) this.fail(err);
    }
  }

  private fail(err: unknown): void {
    this.closed = true;
    this.progress.stop(err);
    void this.stream
      .unsubscribe()
      .catch(() => undefined)
      .finally(this.onClosed);
    this.onError(err);
  }
}
