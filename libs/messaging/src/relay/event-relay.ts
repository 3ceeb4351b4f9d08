// The outbox relay: every event committed to the store is published on the bus, in position order.
//
// The checkpoint is saved in batches after publishing. A crash in between republishes a few events,
// which is harmless: publish dedupes by event id and consumers are idempotent anyway.
import type { CheckpointStore, EventStore, RecordedEvent, Subscription } from '@spawnpoint/eventstore';
import { logger } from '@spawnpoint/logging';
import type { Bus } from '../bus';
import { integrationHeaders, toIntegrationEvent } from './to-integration-event';

const log = logger('relay');

export interface EventRelayOptions {
  store: EventStore;
  bus: Bus;
  checkpoints: CheckpointStore;
  /** Checkpoint name (default 'relay'). */
  name?: string;
  /** Only relay these stream categories (default all). */
  categories?: string[];
}

/** How long a published position may wait before its checkpoint is saved. */
const SAVE_DELAY_MS = 500;
/** Pause before resubscribing after a failure (bus or store unavailable, consumer failing in-process). */
const RETRY_DELAY_MS = 1000;

export class EventRelay {
  private readonly name: string;
  private running = false;
  private subscription?: Subscription;
  /** Last position published; the subscription resumes after it. */
  private published = 0n;
  private saved = 0n;
  /** Saves run one after another, so the checkpoint never moves backwards. */
  private saving: Promise<void> = Promise.resolve();
  private saveTimer?: NodeJS.Timeout;
  private retryTimer?: NodeJS.Timeout;

  constructor(private readonly options: EventRelayOptions) {
    this.name = options.name ?? 'relay';
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      this.published = this.saved = await this.options.checkpoints.load(this.name);
    } catch (err) {
      this.running = false;
      throw err;
    }
    // stop() may have been called while the checkpoint loaded.
    if (this.running) this.subscribe();
  }

  /**
   * How far publishing is behind the store: the events of its categories not published yet (counted up to
   * `cap`) and the age of the oldest of them, in seconds (both 0 when caught up).
   */
  async lag(now = new Date(), cap = 100_000): Promise<{ events: number; seconds: number }> {
    const from = { fromPosition: this.published, categories: this.options.categories };
    const [next] = await this.options.store.readAll({ ...from, limit: 1 });
    if (!next) return { events: 0, seconds: 0 };
    const events = await this.options.store.countAfter({ ...from, limit: cap });
    return { events, seconds: Math.max(0, (now.getTime() - next.createdAt.getTime()) / 1000) };
  }

  /** Stops relaying and saves the checkpoint of what was published. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    clearTimeout(this.retryTimer);
    clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    await this.subscription?.close();
    this.subscription = undefined;
    await this.save();
  }

  private subscribe(): void {
    this.subscription = this.options.store.subscribeToAll(
      { fromPosition: this.published, categories: this.options.categories },
      (event) => this.relay(event),
      (err) => this.resubscribeLater(err),
    );
  }

  private async relay(recorded: RecordedEvent): Promise<void> {
    // A subscription being replaced may still hand over events the new one also delivers.
    if (!this.running || recorded.position <= this.published) return;
    await this.options.bus.publish(toIntegrationEvent(recorded), integrationHeaders(recorded));
    this.published = recorded.position;
    this.saveTimer ??= setTimeout(() => {
      this.saveTimer = undefined;
      void this.save();
    }, SAVE_DELAY_MS);
  }

  /** A failed publish stops the subscription (it must not skip the event): start again from the last published one. */
  private resubscribeLater(err: unknown): void {
    if (!this.running) return;
    log.error({ err }, `relay ${this.name}: stopped at position ${this.published}, retrying in ${RETRY_DELAY_MS} ms`);
    const failed = this.subscription;
    this.subscription = undefined;
    void failed?.close().catch(() => undefined);
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      if (this.running) this.subscribe();
    }, RETRY_DELAY_MS);
  }

  private save(): Promise<void> {
    this.saving = this.saving.then(async () => {
      const position = this.published;
      if (position === this.saved) return;
      try {
        await this.options.checkpoints.save(this.name, position);
        this.saved = position;
      } catch (err) {
        // The next save covers it; meanwhile a restart would merely republish.
        log.error({ err }, `relay ${this.name}: could not save checkpoint ${position}`);
      }
    });
    return this.saving;
  }
}
