// The event store on EventStoreDB (@eventstore/db-client 6.x). Positions are $all commit positions.
// $all reads have no server-side filter in this client, so readAll() filters while reading.
import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  StreamNotFoundError,
  WrongExpectedVersionError,
} from '@eventstore/db-client';
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
  WrongExpectedVersion,
} from '../event-store';
import { fromEsdbEvent, fromEsdbRevision, inCategories, toEsdbEvent, toEsdbExpected, toEsdbPosition } from './esdb-mapping';
import { EventStoreDbSubscription } from './eventstoredb-subscription';
import { appendAttributes, appendOutcome, readOutcome, storeSpan } from '../tracing';
import { logger } from '@spawnpoint/logging';

const log = logger('eventstore');

export interface EventStoreDbEventStoreOptions {
  /** e.g. `esdb://localhost:2113?tls=false` */
  connectionString: string;
}

/** A stream nobody writes: reading it is a cheap round trip that needs no special permissions. */
const PING_STREAM = 'spawnpoint_ping';
const PING_DEADLINE_MS = 5000;

export class EventStoreDbEventStore implements EventStore {
  private readonly client: EventStoreDBClient;
  private readonly subscriptions = new Set<EventStoreDbSubscription>();

  constructor(options: EventStoreDbEventStoreOptions) {
    this.client = EventStoreDBClient.connectionString(options.connectionString);
  }

  appendToStream(streamId: string, events: EventData[], expected: ExpectedRevision): Promise<AppendResult> {
    return storeSpan('eventstoredb', 'append', () => appendAttributes(streamId, events.length, expected), () => this.append(streamId, events, expected), appendOutcome);
  }

  readStream(streamId: string, fromRevision = 0): Promise<ReadStreamResult> {
    return storeSpan('eventstoredb', 'read', () => ({ 'spawnpoint.stream_id': streamId, 'spawnpoint.from_revision': fromRevision }), () => this.read(streamId, fromRevision), readOutcome);
  }

  readAll(options: SubscribeOptions & { limit?: number }): Promise<RecordedEvent[]> {
    return storeSpan('eventstoredb', 'readAll', () => ({ 'spawnpoint.from_position': String(options.fromPosition ?? 0n) }), () => this.readAllFiltered(options), readOutcome);
  }

  private async append(streamId: string, events: EventData[], expected: ExpectedRevision): Promise<AppendResult> {
    try {
      const result = await this.client.appendToStream(streamId, events.map(toEsdbEvent), {
        expectedRevision: toEsdbExpected(expected),
      });
      return { nextRevision: Number(result.nextExpectedRevision), position: result.position?.commit ?? 0n };
    } catch (err) {
      if (err instanceof WrongExpectedVersionError) {
        throw new WrongExpectedVersion(streamId, expected, fromEsdbRevision(err.actualVersion));
      }
      throw err;
    }
  }

  private async read(streamId: string, fromRevision: number): Promise<ReadStreamResult> {
    const events: RecordedEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(streamId, { fromRevision: BigInt(fromRevision) })) {
        const event = fromEsdbEvent(resolved);
        if (event) events.push(event);
      }
    } catch (err) {
      if (err instanceof StreamNotFoundError) return { events: [], revision: fromRevision - 1 };
      throw err;
    }
    return { events, revision: events.length ? events[events.length - 1].revision : fromRevision - 1 };
  }

  private async readAllFiltered({ fromPosition = 0n, categories, limit }: SubscribeOptions & { limit?: number }): Promise<RecordedEvent[]> {
    const max = limit ?? Infinity;
    const events: RecordedEvent[] = [];
    if (max <= 0) return events;
    const read = this.client.readAll({ fromPosition: toEsdbPosition(fromPosition) });
    try {
      for await (const resolved of read) {
        const event = fromEsdbEvent(resolved);
        // Reading $all from a position includes the event at it; ours is exclusive.
        if (!event || event.position <= fromPosition || !inCategories(event.streamId, categories)) continue;
        events.push(event);
        if (events.length >= max) break;
      }
    } finally {
      await read.cancel();
    }
    return events;
  }

  subscribeToAll(options: SubscribeOptions, handler: EventHandler, onError?: (err: unknown) => void): Subscription {
    const subscription: EventStoreDbSubscription = new EventStoreDbSubscription(
      this.client,
      options,
      handler,
      // A stopped subscription must not go unnoticed when the caller gave no onError.
      onError ?? ((err) => log.error({ err }, 'event store subscription stopped')),
      (categories) => this.lastPosition(categories),
      () => this.subscriptions.delete(subscription),
    );
    this.subscriptions.add(subscription);
    return subscription;
  }

  headPosition(categories?: string[]): Promise<bigint> {
    return this.lastPosition(categories);
  }

  /** No count on the server: the events are read (filtered here, like readAll), so keep `limit` small. */
  async countAfter(options: SubscribeOptions & { limit: number }): Promise<number> {
    return (await this.readAll(options)).length;
  }

  async ping(): Promise<void> {
    try {
      await this.client.readStream(PING_STREAM, { maxCount: 1, deadline: PING_DEADLINE_MS }).toArray();
    } catch (err) {
      if (!(err instanceof StreamNotFoundError)) throw err;
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.close()));
    await this.client.dispose();
  }

  /** Reads $all backwards to the last of our events (in `categories` when given), skipping system events. */
  private async lastPosition(categories?: string[]): Promise<bigint> {
    const read = this.client.readAll({ fromPosition: END, direction: BACKWARDS });
    try {
      for await (const resolved of read) {
        const event = fromEsdbEvent(resolved);
        if (event && inCategories(event.streamId, categories)) return event.position;
      }
      return 0n;
    } finally {
      await read.cancel();
    }
  }
}
