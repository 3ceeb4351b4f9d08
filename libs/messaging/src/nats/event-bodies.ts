// An integration event over the message limit is kept in a JetStream object store (ADR-0019): the event
// stream gets a message with no body and a header naming the object (the event id), and a consumer reads
// the object. The store keeps objects as long as the stream keeps events (the same max age), so a consumer
// that catches up later still finds them. Events are bounded by our input limits and almost never get here;
// this is what keeps a rare large one from stopping the relay (a publish NATS refuses is retried forever).
import { type JetStreamClient, type MsgHdrs, nanos, type ObjectStore, StorageType } from 'nats';

/** The header on the stream's message: the object's name. Starts with `Spawnpoint-Body`: hidden from handlers. */
export const EVENT_OBJECT = 'Spawnpoint-Body-Object';

const READ_TIMEOUT_MS = 30_000;

export class EventBodies {
  private store?: Promise<ObjectStore>;

  constructor(private readonly js: JetStreamClient, private readonly bucket: string, private readonly maxAgeMs: number) {}

  /**
   * Stores the event's body under its id and returns the header for its message. A republish (the relay
   * after a crash) finds it stored and leaves it: the bytes are the same, and overwriting would purge the
   * chunks a consumer may be reading.
   */
  async put(eventId: string, data: Uint8Array): Promise<Record<string, string>> {
    const store = await this.open();
    const stored = await store.info(eventId);
    if (!stored || stored.deleted || stored.size !== data.length) await store.putBlob({ name: eventId }, data);
    return { [EVENT_OBJECT]: eventId };
  }

  /** The event's body: the message's own, or the object its header names; null when that object is gone (past retention). */
  async bodyOf(msg: { data: Uint8Array; headers?: MsgHdrs }): Promise<Uint8Array | null> {
    const name = msg.headers?.get(EVENT_OBJECT);
    if (!name) return msg.data;
    const store = await this.open();
    // A read that stalls (chunks purged under it, NATS gone) is a failure to retry, not a consumer stuck for good.
    let timer: NodeJS.Timeout | undefined;
    const stalled = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`reading event body ${name}: no answer within ${READ_TIMEOUT_MS} ms`)), READ_TIMEOUT_MS);
    });
    try {
      return await Promise.race([store.getBlob(name), stalled]);
    } finally {
      clearTimeout(timer);
    }
  }

  private open(): Promise<ObjectStore> {
    // Created on first use (most connections never need it); a failure is tried again next time.
    this.store ??= this.js.views.os(this.bucket, { storage: StorageType.File, ttl: nanos(this.maxAgeMs), description: 'integration events over the message limit (ADR-0019)' })
      .catch((err: unknown) => {
        this.store = undefined;
        throw err;
      });
    return this.store;
  }
}

/** Object store bucket of a stream's large events. */
export const eventBodiesBucket = (stream: string) => `${stream}_BODIES`;
