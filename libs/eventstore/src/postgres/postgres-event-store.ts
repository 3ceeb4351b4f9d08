// The event store on PostgreSQL: one `events` table, appends through the append_events*() functions
// (see schema.ts for why position order equals commit order), subscriptions woken by LISTEN/NOTIFY.
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import {
  AppendResult,
  EventData,
  EventHandler,
  EventStore,
  ExpectedRevision,
  ReadStreamResult,
  RecordedEvent,
  SubscribeOptions,
  Subscription,
} from '../event-store';
import { AppendBatcher } from './append-batcher';
import { AppendNotifier } from './append-notifier';
import { countEventsAfter, EVENT_COLUMNS, lastPosition, readAllEvents, toRecordedEvent } from './event-queries';
import { LiveTail } from './live-tail';
import { PostgresSubscription } from './postgres-subscription';
import { MIGRATE_LOCK, SCHEMA_SQL } from './schema';
import { appendAttributes, appendOutcome, readOutcome, storeSpan } from '../tracing';
import { logger } from '@spawnpoint/logging';

const READ_STREAM_SQL = `SELECT ${EVENT_COLUMNS} FROM events WHERE stream_id = $1 AND revision >= $2 ORDER BY revision`;
const log = logger('eventstore');

export interface PostgresEventStoreOptions {
  connectionString: string;
  /** Pool size for appends and reads (default 10). Subscriptions share the pool plus one LISTEN connection. */
  poolSize?: number;
}

export class PostgresEventStore implements EventStore {
  /** Exposed so a PostgresCheckpointStore (or a health check) can share the connections. */
  readonly pool: Pool;
  private readonly appender: AppendBatcher;
  private readonly notifier: AppendNotifier;
  /** Caught-up subscriptions share its reads: one query per wake-up, however many subscriptions. */
  private readonly tail: LiveTail;
  private readonly subscriptions = new Set<PostgresSubscription>();

  constructor(options: PostgresEventStoreOptions) {
    this.pool = new Pool({ connectionString: options.connectionString, max: options.poolSize ?? 10 });
    // An idle connection dropped by the server is discarded by the pool; without a listener it would crash the process.
    this.pool.on('error', () => undefined);
    // A client dropped while checked out (a long transaction, a lock) emits 'error' too: the query it runs fails instead.
    this.pool.on('connect', (c) => c.on('error', () => undefined));
    this.appender = new AppendBatcher(this.pool);
    this.notifier = new AppendNotifier(options.connectionString);
    this.tail = new LiveTail(this.pool, this.notifier);
  }

  /** Creates the schema if missing; safe to run concurrently from several processes. */
  async migrate(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1)', [MIGRATE_LOCK]);
      try {
        await client.query(SCHEMA_SQL);
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [MIGRATE_LOCK]);
      }
    } finally {
      client.release();
    }
  }

  appendToStream(streamId: string, events: EventData[], expected: ExpectedRevision): Promise<AppendResult> {
    return storeSpan('postgresql', 'append', () => appendAttributes(streamId, events.length, expected), () => this.appender.append(
      streamId,
      expected,
      events.map((e) => ({ id: e.id ?? randomUUID(), type: e.type, data: e.data ?? null, metadata: e.metadata ?? {} })),
    ), appendOutcome);
  }

  readStream(streamId: string, fromRevision = 0): Promise<ReadStreamResult> {
    return storeSpan('postgresql', 'read', () => ({ 'spawnpoint.stream_id': streamId, 'spawnpoint.from_revision': fromRevision }), async () => {
      // Named (prepared once per connection): planned every time, this lookup's planning cost more than its execution.
      const { rows } = await this.pool.query({ name: 'spawnpoint_read_stream', text: READ_STREAM_SQL, values: [streamId, fromRevision] });
      const events = rows.map(toRecordedEvent);
      return { events, revision: events.length ? events[events.length - 1].revision : fromRevision - 1 };
    }, readOutcome);
  }

  readAll(options: SubscribeOptions & { limit?: number }): Promise<RecordedEvent[]> {
    return storeSpan('postgresql', 'readAll', () => ({ 'spawnpoint.from_position': String(options.fromPosition ?? 0n) }), () => readAllEvents(this.pool, options), readOutcome);
  }

  subscribeToAll(options: SubscribeOptions, handler: EventHandler, onError?: (err: unknown) => void): Subscription {
    const subscription: PostgresSubscription = new PostgresSubscription(
      this.pool,
      this.tail,
      options,
      handler,
      // A stopped subscription must not go unnoticed when the caller gave no onError.
      onError ?? ((err) => log.error({ err }, 'event store subscription stopped')),
      () => this.subscriptions.delete(subscription),
    );
    this.subscriptions.add(subscription);
    return subscription;
  }

  headPosition(categories?: string[]): Promise<bigint> {
    return lastPosition(this.pool, categories);
  }

  countAfter(options: SubscribeOptions & { limit: number }): Promise<number> {
    return countEventsAfter(this.pool, options);
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.close()));
    await this.notifier.stop();
    if (!this.pool.ended) await this.pool.end();
  }
}
