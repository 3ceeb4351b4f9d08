// Folded states of hot streams kept in memory: a load reads only the events after the cached revision
// (one small query instead of the whole stream), so it is as exact as a full read. States are the
// decider's own immutable values; writers record what they appended with `remember`.
// The cache also knows the command ids recorded on a stream (up to MAX_IDS of them), so "was this
// workflow intent applied already?" costs the same small tail read, not a read of the whole stream.
import { Decider, DomainEvent } from '@spawnpoint/domain';
import { EventMetadata, EventStore } from '@spawnpoint/eventstore';
import { execute, Executed } from './execute';

export interface Loaded<S> { state: S; revision: number }

/** Past this many command ids on one stream, the cache stops keeping them (a check reads the stream). */
const MAX_IDS = 256;
const commandIdOf = (m: EventMetadata): string | undefined => (typeof m.commandId === 'string' ? m.commandId : undefined);

export class StateCache<C, E extends DomainEvent, S> {
  private readonly entries = new Map<string, Loaded<S>>();
  /** The command ids of every event of the stream up to its cached revision; null: not known whole. */
  private readonly ids = new Map<string, Set<string> | null>();

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
    this.remember(streamId, loaded, { after: cached ? cached.revision : -1, commandIds: events.map((e) => commandIdOf(e.metadata)) });
    return loaded;
  }

  /**
   * Whether an event of the stream carries `commandId` (a workflow intent already applied), and the state
   * at the head just read, so the command that follows can decide on it without another read.
   */
  async applied(streamId: string, commandId: string): Promise<{ applied: boolean; loaded: Loaded<S> }> {
    const loaded = await this.load(streamId);
    const ids = this.ids.get(streamId);
    if (ids) return { applied: ids.has(commandId), loaded };
    // Not known whole (too many ids, or remembered from outside): read the stream from the start.
    const { events, revision } = await this.store.readStream(streamId);
    let state = this.decider.initialState;
    for (const e of events) state = this.decider.evolve(state, { type: e.type, data: e.data } as E);
    this.forget(streamId);
    this.remember(streamId, { state, revision }, { after: -1, commandIds: events.map((e) => commandIdOf(e.metadata)) });
    return { applied: events.some((e) => e.metadata.commandId === commandId), loaded: { state, revision } };
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
    this.remember(streamId, result, { after: result.revision - result.events.length, commandIds: result.events.map(() => result.commandId) });
    return result;
  }

  /**
   * The state after an append (or a read) of this process; an older revision never replaces a newer one.
   * `appended`: the revision the new events follow and their command ids (without it, the stream's
   * command ids are no longer known whole).
   */
  remember(streamId: string, loaded: Loaded<S>, appended?: { after: number; commandIds: (string | undefined)[] }): void {
    const cached = this.entries.get(streamId);
    if (cached && cached.revision >= loaded.revision) return;
    const before = appended?.after === -1 ? new Set<string>() : appended && cached?.revision === appended.after ? this.ids.get(streamId) : null;
    let ids: Set<string> | null = before ?? null;
    if (ids) {
      for (const id of appended!.commandIds) if (id !== undefined) ids.add(id);
      if (ids.size > MAX_IDS) ids = null;
    }
    this.entries.delete(streamId);
    this.entries.set(streamId, loaded);
    this.ids.set(streamId, ids);
    if (this.entries.size > this.capacity) this.forget(this.entries.keys().next().value!);
  }

  forget(streamId: string): void {
    this.entries.delete(streamId);
    this.ids.delete(streamId);
  }
}
