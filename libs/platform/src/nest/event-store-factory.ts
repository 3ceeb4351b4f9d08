// Which event store a service uses, in one place (ADR-0009): EVENTSTORE_URL set → EventStoreDB for the
// streams, subscriptions and outbox relays; unset → PostgreSQL on DATABASE_URL. Checkpoints stay in
// PostgreSQL either way (the relays' in event_checkpoints; the read models' commit with the read model).
import {
  CheckpointStore,
  EventStore,
  EventStoreDbEventStore,
  PostgresCheckpointStore,
  PostgresEventStore,
} from '@spawnpoint/eventstore';
import type { PlatformConfig } from './config';

export type EventStoreChoice =
  | { kind: 'postgres'; connectionString: string; poolSize?: number }
  | { kind: 'eventstoredb'; connectionString: string; checkpointsUrl: string };

/** Pure: the store the configuration selects. */
export function chooseEventStore(config: Pick<PlatformConfig, 'databaseUrl' | 'eventStoreUrl'> & { dbPoolSize?: number }): EventStoreChoice {
  const url = config.eventStoreUrl?.trim();
  if (url) return { kind: 'eventstoredb', connectionString: url, checkpointsUrl: config.databaseUrl };
  return { kind: 'postgres', connectionString: config.databaseUrl, ...(config.dbPoolSize ? { poolSize: config.dbPoolSize } : {}) };
}

export interface OpenedEventStore {
  choice: EventStoreChoice;
  store: EventStore;
  checkpoints: CheckpointStore;
  /** Closes the store and the checkpoints' own pool, if any. */
  close(): Promise<void>;
}

/** How long the first EventStoreDB round trip may take before the start fails. */
const REACH_TIMEOUT_MS = 15_000;

/** The connection string with its password hidden (errors are logged). */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z+]+:\/\/[^:/@]+):[^@/]*@/i, '$1:***@');
}

/**
 * Opens the chosen store (PostgreSQL: migrates its schema). An EventStoreDB that cannot be reached fails
 * the start at once with a message naming EVENTSTORE_URL, rather than hanging on its first subscription.
 */
export async function openEventStore(choice: EventStoreChoice, options: { reachTimeoutMs?: number } = {}): Promise<OpenedEventStore> {
  if (choice.kind === 'postgres') {
    const store = new PostgresEventStore({ connectionString: choice.connectionString, poolSize: choice.poolSize });
    try {
      await store.migrate();
      const checkpoints = new PostgresCheckpointStore(store.pool);
      await checkpoints.migrate();
      return { choice, store, checkpoints, close: () => store.close() };
    } catch (err) {
      await store.close().catch(() => undefined);
      throw err;
    }
  }
  const named = `EVENTSTORE_URL (${redactUrl(choice.connectionString)})`;
  let store: EventStoreDbEventStore;
  try {
    store = new EventStoreDbEventStore({ connectionString: choice.connectionString });
  } catch (err) {
    throw new Error(`${named} is not an EventStoreDB connection string: ${(err as Error).message}`);
  }
  const checkpoints = new PostgresCheckpointStore(choice.checkpointsUrl);
  const close = async () => {
    await store.close().catch(() => undefined);
    await checkpoints.close();
  };
  try {
    await reach(store, options.reachTimeoutMs ?? REACH_TIMEOUT_MS).catch((err: Error) => {
      throw new Error(`EventStoreDB at ${named} is unreachable: ${err.message}`);
    });
    await checkpoints.migrate();
  } catch (err) {
    await close();
    throw err;
  }
  return { choice, store, checkpoints, close };
}

async function reach(store: EventStore, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      store.ping(),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
