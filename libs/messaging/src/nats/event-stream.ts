// The JetStream stream that keeps integration events.
import { type JetStreamManager, nanos, StorageType } from 'nats';

/** Republishing an event id within this window is dropped by the server (the relay may republish after a crash). */
const DUPLICATE_WINDOW_MS = 2 * 60_000;

/** Creates the stream, or brings an existing one's subjects and duplicate window up to date. */
export async function ensureEventStream(jsm: JetStreamManager, name: string, subjectPrefix: string): Promise<void> {
  const config = { subjects: [`${subjectPrefix}.>`], duplicate_window: nanos(DUPLICATE_WINDOW_MS) };
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
