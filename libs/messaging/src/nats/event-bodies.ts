// An integration event over the message limit is kept in a JetStream object store (ADR-0019): the event
// stream gets a message with no body and a header naming the object (the event id), and a consumer reads
// the object. The store keeps objects as long as the stream keeps events (the same max age), so a consumer
// that catches up later still finds them. Events are bounded by our input limits and almost never get here;
// this is what keeps a rare large one from stopping the relay (a publish NATS refuses is retried forever).
import { type JetStreamClient, type MsgHdrs, nanos, type ObjectStore, StorageType } from 'nats';

/** The header on the stream's message: the object's name. Starts with `Spawnpoint-Body`: hidden from handlers. */
export const EVENT_OBJECT = 'Spawnpoint-Body-Object';

export class EventBodies {
  private store?: Promise<ObjectStore>;

  constructor(private readonly js: JetStreamClient, private readonly bucket: string, private readonly maxAgeMs: number) {}

  /** Stores the event's body under its id (a republish overwrites it with the same bytes) and returns the header for its message. */
  async put(eventId: string, data: Uint8Array): Promise<Record<string, string>> {
    await (await this.open()).putBlob({ name: eventId }, data);
    return { [EVENT_OBJECT]: eventId };
  }

  /** The event's body: the message's own, or the object its header names; null when that object is gone (past retention). */
  async bodyOf(msg: { data: Uint8Array; headers?: MsgHdrs }): Promise<Uint8Array | null> {
    const name = msg.headers?.get(EVENT_OBJECT);
    if (!name) return msg.data;
    return (await this.open()).getBlob(name);
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
