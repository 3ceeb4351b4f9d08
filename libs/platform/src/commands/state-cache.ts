// Folded states of hot streams kept in memory: a load reads only the events after the cached revision
// (one small query instead of the whole stream), so it is as exact as a full read. States are the
// decider's own immutable values; writers record what they appended with `remember`.
// The cache also knows the command ids recorded on a stream (up to MAX_IDS of them), so "was this
// workflow intent applied already?" costs the same small tail read, not a read of the whole stream.
import { Decider, DomainEvent } from '@spawnpoint/domain';
import { EventMetadata, EventStore, RecordedEvent } from '@spawnpoint/eventstore';
import { execute, Executed } from './execute';

export interface Loaded<S> { state: S; revision: number }

/**
 * Past this many command ids on one stream, the cache stops keeping them and a check reads the stream.
 * Bounds the memory: at most capacity × 64 ids (~70 bytes each); the streams workflows act on (a match,
 * a server, a lobby in its queue) have far fewer, and a long-lived lobby full of state updates falls back.
 */
const MAX_IDS = 64;
const commandIdOf = (m: EventMetadata): string | undefined => (typeof m.commandId === 'string' ? m.commandId : undefined);

/** The command id is on the stream already (thrown out of execute's loop, answered as `repeated`). */
class Repeated extends Error {
  constructor(readonly at: Loaded<unknown>) {
    super('repeated');
  }
}

export class StateCache<C, E extends DomainEvent, S> {
  private readonly entries = new Map<string, Loaded<S>>();
  /** The command ids of every event of the stream up to its cached revision; null: not known whole. */
  private readonly ids = new Map<string, Set<string> | null>();

  constructor(private readonly store: EventStore, private readonly decider: Decider<C, E, S>, private readonly capacity = 20_000) {}

  /** `seen`: a revision the caller knows exists (e.g. an applied event's); a cached state that has it is answered without a read. */
  async load(streamId: string, seen?: number): Promise<Loaded<S>> {
    const cached = this.entries.get(streamId);
    if (cached && seen !== undefined && cached.revision >= seen) return cached;
    return (await this.readOn(streamId, cached)).loaded;
  }

  /** Reads the events after `cached` (all of them without it), folds them on and remembers the result. */
  private async readOn(streamId: string, cached: Loaded<S> | undefined): Promise<{ loaded: Loaded<S>; events: RecordedEvent[] }> {
    const { events, revision } = await this.store.readStream(streamId, cached ? cached.revision + 1 : 0);
    if (cached && events.length === 0) return { loaded: cached, events };
    let state = cached?.state ?? this.decider.initialState;
    for (const e of events) state = this.decider.evolve(state, { type: e.type, data: e.data } as E);
    const loaded = { state, revision };
    this.remember(streamId, loaded, { after: cached ? cached.revision : -1, commandIds: events.map((e) => commandIdOf(e.metadata)) });
    return { loaded, events };
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
    this.forget(streamId);
    const whole = await this.readOn(streamId, undefined);
    return { applied: whole.events.some((e) => commandIdOf(e.metadata) === commandId), loaded: whole.loaded };
  }

  /** The cached state, without a read (undefined when this process has not seen the stream). */
  peek(streamId: string): Loaded<S> | undefined {
    return this.entries.get(streamId);
  }

  /**
   * Decide and append, reading only the stream's tail. `optimistic`: decide first on the cached state
   * (a stream never seen: its initial state at revision -1) with no read at all — exact all the same,
   * as a stale state's append fails on its revision and a refusal is decided again on a read.
   * `once`: a command id applied at most once on this stream (a workflow intent's key): when an event
   * already carries it, nothing is decided and the answer is `repeated`. With `optimistic`, a cached state
   * whose ids lack it needs no read: its append succeeds only if the state is the stream's head, and a
   * stale one's retry reads the tail and looks again.
   */
  async execute(
    streamId: string, command: C | ((state: S) => C), metadata: EventMetadata = {}, options: { optimistic?: boolean; once?: string; beforeAppend?: () => Promise<void> } = {},
  ): Promise<Executed<S, E> & { repeated?: boolean }> {
    const once = options.once;
    if (once !== undefined && this.entries.has(streamId) && !this.ids.get(streamId)) {
      // The ids of this stream are not known whole: settle it with a read of the stream first.
      const { applied, loaded } = await this.applied(streamId, once);
      if (applied) return { ...loaded, events: [], position: null, repeated: true };
    }
    // A retry reads the tail; with `once`, that read also tells whether the key has landed meanwhile.
    const read = once === undefined
      ? () => this.load(streamId)
      : async (): Promise<Loaded<S>> => {
        const { applied, loaded } = await this.applied(streamId, once);
        if (applied) throw new Repeated(loaded);
        return loaded;
      };
    // Asked once the stream's lane is ours: the cached state then includes the previous command's append.
    const known = options.optimistic
      ? () => {
        const cached = this.entries.get(streamId);
        if (cached && once !== undefined && this.ids.get(streamId)?.has(once)) throw new Repeated(cached);
        return cached ?? { state: this.decider.initialState, revision: -1 };
      }
      : undefined;
    let result: Executed<S, E>;
    try {
      result = await execute(this.store, this.decider, streamId, command, metadata, { known, read, beforeAppend: options.beforeAppend });
    } catch (err) {
      if (err instanceof Repeated) return { ...(err.at as Loaded<S>), events: [], position: null, repeated: true };
      throw err;
    }
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
