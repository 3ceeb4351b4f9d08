// The JetStream stream that keeps integration events.
import { type JetStreamManager, nanos, StorageType } from 'nats';

/** Republishing an event id within this window is dropped by the server (the relay may republish after a crash). */
const DUPLICATE_WINDOW_MS = 2 * 60_000;

/**
 * How long and how much the stream keeps (the oldest go first). The events are copies: every service's
 * own state is in the event store, so retention only bounds how long a consumer may stay away and still
 * catch up (docs/operations.md#jetstream-retention). `maxBytes` -1: no byte limit. A byte limit is
 * reserved out of the NATS server's storage when the stream is made (a server refuses one it cannot
 * hold), so it is opt-in; the age limit costs nothing up front.
 */
export interface EventRetention {
  maxAgeMs: number;
  maxBytes: number;
}

export const DEFAULT_EVENT_RETENTION: EventRetention = { maxAgeMs: 7 * 24 * 3600_000, maxBytes: -1 };

/** Creates the stream, or brings an existing one's subjects, duplicate window and retention up to date. */
export async function ensureEventStream(jsm: JetStreamManager, name: string, subjectPrefix: string, retention: EventRetention = DEFAULT_EVENT_RETENTION): Promise<void> {
  const config = {
    subjects: [`${subjectPrefix}.>`],
    duplicate_window: nanos(Math.min(DUPLICATE_WINDOW_MS, retention.maxAgeMs)),
    max_age: nanos(retention.maxAgeMs),
    max_bytes: retention.maxBytes,
  };
  const exists = await jsm.streams.info(name).then(
    () => true,
    (err: unknown) => {
      if (isNotFound(err)) return false;
      throw err;
    },
  );
  if (exists) await jsm.streams.update(name, config);
  else await jsm.streams.add({ name, storage: StorageType.File, ...config });
}

function isNotFound(err: unknown): boolean {
  return (err as { api_error?: { err_code?: number } }).api_error?.err_code === 10059;
}
