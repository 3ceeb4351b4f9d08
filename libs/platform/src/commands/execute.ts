// The command handler's loop: read → fold → decide → append at the revision read; on a concurrent
// append, read again and decide again. A decider that returns no events appends nothing.
// Writes to one stream are serialised per store in this process (a lane per stream id), so commands of
// one process never race each other; replicas race only each other, decided by the expected revision.
import { Decider, DomainError, DomainEvent, fold } from '@spawnpoint/domain';
import { EventMetadata, EventStore, WrongExpectedVersion } from '@spawnpoint/eventstore';
import { commandMetadata } from './command-context';
import { KeyedLane } from './keyed-lane';
import { traceMetadata } from '../nest/tracing';

export interface Executed<S, E> {
  state: S;
  events: E[];
  /** Global position of the last appended event; null when nothing was appended. */
  position: bigint | null;
  /** Stream revision after the command (-1: the stream does not exist). */
  revision: number;
  /** The command id recorded on the events appended (if any). */
  commandId?: string;
}

export interface Known<S> { state: S; revision: number; fresh?: boolean }

export interface ExecuteOptions<S> {
  /** Appends tried before the command is refused as a conflict (409); default 20. */
  maxAttempts?: number;
  /**
   * Decide first on this state instead of reading (a function: asked once the stream's lane is ours, so
   * it sees the previous command's result). A stale state cannot write: its append fails on the revision
   * and the next attempt reads. Unless `fresh` (just read), a refusal or a no-op decided on it is decided
   * again on a read before it stands.
   */
  known?: Known<S> | (() => Known<S> | undefined);
  /** How a retry reads the stream (default: the whole stream; e.g. a StateCache reads only the tail). */
  read?: () => Promise<{ state: S; revision: number }>;
  /** Done once events are decided, before they are appended (see HandleOptions.beforeAppend). */
  beforeAppend?: () => Promise<void>;
}

/** Raised when the appends kept losing to other writers: the caller answers 409, the client may retry. */
export class ContentionConflict extends DomainError {
  constructor(readonly streamId: string, readonly attempts: number) {
    super('conflict', `the resource was changed concurrently ${attempts} times while this request was decided; retry it`);
  }
}

const lanes = new WeakMap<EventStore, KeyedLane>();

function laneOf(store: EventStore): KeyedLane {
  let lane = lanes.get(store);
  if (!lane) lanes.set(store, (lane = new KeyedLane()));
  return lane;
}

export function execute<C, E extends DomainEvent, S>(
  store: EventStore,
  decider: Decider<C, E, S>,
  streamId: string,
  command: C | ((state: S) => C),
  metadata: EventMetadata = {},
  options: ExecuteOptions<S> = {},
): Promise<Executed<S, E>> {
  // Captured now: the lane runs the work later, possibly outside the caller's async context.
  const meta = { ...traceMetadata(), ...commandMetadata(), ...metadata };
  return laneOf(store).run(streamId, () => decideAndAppend(store, decider, streamId, command, meta, options));
}

async function decideAndAppend<C, E extends DomainEvent, S>(
  store: EventStore,
  decider: Decider<C, E, S>,
  streamId: string,
  command: C | ((state: S) => C),
  meta: EventMetadata,
  options: ExecuteOptions<S>,
): Promise<Executed<S, E>> {
  const maxAttempts = options.maxAttempts ?? 20;
  const read = options.read ?? (() => load(store, decider, streamId));
  const known = typeof options.known === 'function' ? options.known() : options.known;
  let current = known ? { ...known, fresh: known.fresh ?? false } : { ...(await read()), fresh: true };
  for (let attempt = 1; ; attempt++) {
    const { state, revision } = current;
    let events: E[];
    try {
      const cmd = typeof command === 'function' ? (command as (s: S) => C)(state) : command;
      events = decider.decide(cmd, state);
    } catch (err) {
      if (current.fresh) throw err;
      current = { ...(await read()), fresh: true };
      continue;
    }
    if (events.length === 0) {
      if (current.fresh) return { state, events, position: null, revision };
      current = { ...(await read()), fresh: true };
      continue;
    }
    // Not read again first: a decision on a cached state whose append then fails may yet be refused on
    // the read that follows; beforeAppend is for what is harmless then (an owner row for no server).
    if (options.beforeAppend) await options.beforeAppend();
    try {
      const appended = await store.appendToStream(
        streamId,
        events.map((e) => ({ type: e.type, data: e.data, metadata: meta })),
        revision === -1 ? 'no_stream' : revision,
      );
      return { state: events.reduce(decider.evolve, state), events, position: appended.position, revision: appended.nextRevision, commandId: typeof meta.commandId === 'string' ? meta.commandId : undefined };
    } catch (err) {
      if (!(err instanceof WrongExpectedVersion)) throw err;
      if (attempt >= maxAttempts) throw new ContentionConflict(streamId, attempt);
      // Another replica wrote first: back off a random moment so two writers stop colliding in step.
      if (current.fresh) await sleep(Math.random() * Math.min(50, 2 ** attempt));
      current = { ...(await read()), fresh: true };
    }
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Current state of a stream (for queries that must be exact, e.g. token checks). */
export async function load<C, E extends DomainEvent, S>(store: EventStore, decider: Decider<C, E, S>, streamId: string): Promise<{ state: S; revision: number }> {
  const { events, revision } = await store.readStream(streamId);
  return { state: fold(decider, events.map((e) => ({ type: e.type, data: e.data }) as E)), revision };
}
