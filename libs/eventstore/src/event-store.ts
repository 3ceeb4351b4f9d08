// The event store port. Streams are named `<category>-<id>`; revisions are 0-based per stream;
// positions are global, strictly increasing in commit order (a catch-up reader never skips one).

export interface EventMetadata {
  projectId?: string;
  correlationId?: string;
  causationId?: string;
  traceparent?: string;
  [key: string]: unknown;
}

/** An event to append. `id` (UUID) is generated when absent; it is the dedupe key downstream. */
export interface EventData<T = unknown> {
  id?: string;
  type: string;
  data: T;
  metadata?: EventMetadata;
}

export interface RecordedEvent<T = unknown> {
  id: string;
  streamId: string;
  /** 0-based revision within the stream. */
  revision: number;
  /** Global position, as a bigint: strictly increasing in commit order. */
  position: bigint;
  type: string;
  data: T;
  metadata: EventMetadata;
  createdAt: Date;
}

/** `no_stream`: the stream must not exist; `any`: no check; a number: the stream's current last revision. */
export type ExpectedRevision = number | 'no_stream' | 'any';

export interface AppendResult {
  /** The revision of the last event written. */
  nextRevision: number;
  /** The global position of the last event written. */
  position: bigint;
}

export interface ReadStreamResult {
  events: RecordedEvent[];
  /** The last revision, or -1 when the stream does not exist. */
  revision: number;
}

export class WrongExpectedVersion extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: number,
  ) {
    super(`Wrong expected version on ${streamId}: expected ${String(expected)}, actual ${actual}`);
    this.name = 'WrongExpectedVersion';
  }
}

export interface SubscribeOptions {
  /** Deliver events with position strictly greater than this; 0n (or omitted) from the start. */
  fromPosition?: bigint;
  /** Only streams of these categories (the part of the stream id before the first '-'). */
  categories?: string[];
}

export interface Subscription {
  /** Resolves when the subscription has delivered every event committed before it was called. */
  caughtUp(): Promise<void>;
  close(): Promise<void>;
}

/** Handler errors stop the subscription (it must not skip an event); the error is reported via onError. */
export type EventHandler = (event: RecordedEvent) => Promise<void> | void;

export interface EventStore {
  /**
   * The stream's events from `fromRevision` (default 0) on. `revision` is the last one read; when there is
   * nothing from `fromRevision` on, it is `fromRevision - 1` (-1 from 0: the stream does not exist).
   */
  readStream(streamId: string, fromRevision?: number): Promise<ReadStreamResult>;
  appendToStream(streamId: string, events: EventData[], expected: ExpectedRevision): Promise<AppendResult>;
  /** Events after `fromPosition` in position order, at most `limit`. */
  readAll(options: SubscribeOptions & { limit?: number }): Promise<RecordedEvent[]>;
  /** Catch-up from `fromPosition`, then live. Handlers run one at a time, in position order. */
  subscribeToAll(options: SubscribeOptions, handler: EventHandler, onError?: (err: unknown) => void): Subscription;
  /** Position of the last committed event (0n when empty); among `categories` when given. */
  headPosition(categories?: string[]): Promise<bigint>;
  /** How many events come after `fromPosition` (of `categories` when given), counted up to `limit`: a lag in events. */
  countAfter(options: SubscribeOptions & { limit: number }): Promise<number>;
  /** Liveness for the health check. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export function categoryOf(streamId: string): string {
  const i = streamId.indexOf('-');
  return i === -1 ? streamId : streamId.slice(0, i);
}

/** Where a subscriber (projection, relay) has read up to. Saved after the event's effects are done. */
export interface CheckpointStore {
  load(name: string): Promise<bigint>;
  save(name: string, position: bigint): Promise<void>;
}
