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

export async function execute<C, E extends DomainEvent, S>(
  store: EventStore,
  decider: Decider<C, E, S>,
  streamId: string,
  command: C | ((state: S) => C),
  metadata: EventMetadata = {},
  maxAttempts = 10,
  /** The stream as the caller just read it: the first attempt decides on it instead of reading again
   * (an append at its revision still fails if the stream moved on, and the next attempt reads). */
  known?: { state: S; revision: number },
): Promise<Executed<S, E>> {
  for (let attempt = 1; ; attempt++) {
    const { state, revision } = attempt === 1 && known ? known : await load(store, decider, streamId);
    const cmd = typeof command === 'function' ? (command as (s: S) => C)(state) : command;
    const events = decider.decide(cmd, state);
    if (events.length === 0) return { state, events, position: null, revision };
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
    }
  }
}

/** Current state of a stream (for queries that must be exact, e.g. token checks). */
export async function load<C, E extends DomainEvent, S>(store: EventStore, decider: Decider<C, E, S>, streamId: string): Promise<{ state: S; revision: number }> {
  const { events, revision } = await store.readStream(streamId);
  return { state: fold(decider, events.map((e) => ({ type: e.type, data: e.data }) as E)), revision };
}
