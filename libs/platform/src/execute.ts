// The command handler's loop: read → fold → decide → append at the revision read; on a concurrent
// append, read again and decide again. A decider that returns no events appends nothing.
import { Decider, DomainEvent, fold } from '@spawnpoint/domain';
import { EventMetadata, EventStore, WrongExpectedVersion } from '@spawnpoint/eventstore';
import { traceMetadata } from './tracing';

export interface Executed<S, E> {
  state: S;
  events: E[];
  /** Global position of the last appended event; null when nothing was appended. */
  position: bigint | null;
  /** Stream revision after the command (-1: the stream does not exist). */
  revision: number;
}

export interface ExecuteOptions<S> {
  maxAttempts?: number;
  /**
   * Decide first on this state instead of reading. A stale state cannot write: its append fails on the
   * revision and the next attempt reads. Unless `fresh` (just read), a refusal or a no-op decided on it is
   * decided again on a read before it stands.
   */
  known?: { state: S; revision: number; fresh?: boolean };
  /** How a retry reads the stream (default: the whole stream; e.g. a StateCache reads only the tail). */
  read?: () => Promise<{ state: S; revision: number }>;
}

export async function execute<C, E extends DomainEvent, S>(
  store: EventStore,
  decider: Decider<C, E, S>,
  streamId: string,
  command: C | ((state: S) => C),
  metadata: EventMetadata = {},
  options: ExecuteOptions<S> = {},
): Promise<Executed<S, E>> {
  const maxAttempts = options.maxAttempts ?? 10;
  const read = options.read ?? (() => load(store, decider, streamId));
  let current = options.known ? { ...options.known, fresh: options.known.fresh ?? false } : { ...(await read()), fresh: true };
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
    try {
      const meta = { ...traceMetadata(), ...metadata };
      const appended = await store.appendToStream(
        streamId,
        events.map((e) => ({ type: e.type, data: e.data, metadata: meta })),
        revision === -1 ? 'no_stream' : revision,
      );
      return { state: events.reduce(decider.evolve, state), events, position: appended.position, revision: appended.nextRevision };
    } catch (err) {
      if (!(err instanceof WrongExpectedVersion) || attempt >= maxAttempts) throw err;
      current = { ...(await read()), fresh: true };
    }
  }
}

/** Current state of a stream (for queries that must be exact, e.g. token checks). */
export async function load<C, E extends DomainEvent, S>(store: EventStore, decider: Decider<C, E, S>, streamId: string): Promise<{ state: S; revision: number }> {
  const { events, revision } = await store.readStream(streamId);
  return { state: fold(decider, events.map((e) => ({ type: e.type, data: e.data }) as E)), revision };
}
