// Folded states of hot streams kept in memory: a load reads only the events after the cached revision
// (one small query instead of the whole stream), so it is as exact as a full read. States are the
// decider's own immutable values; writers record what they appended with `remember`.
import { Decider, DomainEvent } from '@spawnpoint/domain';
import { EventMetadata, EventStore } from '@spawnpoint/eventstore';
import { execute, Executed } from './execute';

export interface Loaded<S> { state: S; revision: number }

export class StateCache<C, E extends DomainEvent, S> {
  private readonly entries = new Map<string, Loaded<S>>();

  constructor(private readonly store: EventStore, private readonly decider: Decider<C, E, S>, private readonly capacity = 20_000) {}

  /** `seen`: a revision the caller knows exists (e.g. an applied event's); a cached state that has it is answered without a read. */
  async load(streamId: string, seen?: number): Promise<Loaded<S>> {
    const cached = this.entries.get(streamId);
    if (cached && seen !== undefined && cached.revision >= seen) return cached;
    const { events, revision } = await this.store.readStream(streamId, cached ? cached.revision + 1 : 0);
    if (cached && events.length === 0) return cached;
    let state = cached?.state ?? this.decider.initialState;
    for (const e of events) state = this.decider.evolve(state, { type: e.type, data: e.data } as E);
    const loaded = { state, revision };
    this.remember(streamId, loaded);
    return loaded;
  }

  /** The cached state, without a read (undefined when this process has not seen the stream). */
  peek(streamId: string): Loaded<S> | undefined {
    return this.entries.get(streamId);
  }

  /**
   * Decide and append, reading only the stream's tail. `optimistic`: decide first on the cached state
   * (a stream never seen: its initial state at revision -1) with no read at all — exact all the same,
   * as a stale state's append fails on its revision and a refusal is decided again on a read.
   */
  async execute(streamId: string, command: C | ((state: S) => C), metadata: EventMetadata = {}, options: { optimistic?: boolean } = {}): Promise<Executed<S, E>> {
    // Asked once the stream's lane is ours: the cached state then includes the previous command's append.
    const known = options.optimistic ? () => this.entries.get(streamId) ?? { state: this.decider.initialState, revision: -1 } : undefined;
    const result = await execute(this.store, this.decider, streamId, command, metadata, { known, read: () => this.load(streamId) });
    this.remember(streamId, result);
    return result;
  }

  /** The state after an append (or a read) of this process; an older revision never replaces a newer one. */
  remember(streamId: string, loaded: Loaded<S>): void {
    const cached = this.entries.get(streamId);
    if (cached && cached.revision >= loaded.revision) return;
    this.entries.delete(streamId);
    this.entries.set(streamId, loaded);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  forget(streamId: string): void {
    this.entries.delete(streamId);
  }
}
