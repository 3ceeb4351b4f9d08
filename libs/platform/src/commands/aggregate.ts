// The one write path (ADR-0023): every use-case handler, workflow dispatcher, sweeper and the matcher
// writes an aggregate's events with `handle` — load (the cached state, read on from its revision), decide,
// append at the expected revision, at most once per key, and answer from the decided state or once the
// service's read model shows it. The state cache, the per-stream lane and read-your-writes live here and
// nowhere else. A service declares one injectable subclass per aggregate it writes
// (`class ServerStates extends Aggregate<ServerCommand, ServerEvent, ServerState>`).
import { Decider, DomainEvent } from '@spawnpoint/domain';
import { EventMetadata, EventStore } from '@spawnpoint/eventstore';
import { Executed } from './execute';
import { Loaded, StateCache } from './state-cache';

/** What `await: 'readModel'` waits on: the service's projections (ServiceReadModel). */
export interface ReadYourWrites {
  waitFor(position: bigint | null, streamId: string): Promise<void>;
}

export interface HandleOptions {
  /**
   * The command's key, recorded as its command id: applied at most once on the stream. When an event
   * already carries it (a workflow intent sent again, a client's retry), nothing is decided and the answer
   * is `repeated`, from the stream's state.
   */
  key?: string;
  /** When to answer: once appended (default), or once this service's read models show the write. */
  await?: 'append' | 'readModel';
  /** The project the events belong to (recorded on their metadata). */
  projectId?: string;
  /**
   * Done after the decision and before its append, only when there are events to append (again on a
   * retried append): what must exist before the events do, not done for a command refused at once
   * (a new server's machine owner, ADR-0021). A decision on a cached state may still be refused on the
   * read after a failed append: what it does must be harmless then.
   */
  beforeAppend?: () => Promise<void>;
}

export interface Handled<S, E> extends Executed<S, E> {
  /** The state the command was decided on (the stream's, just before the append). */
  before: S;
  /** The key was on the stream already: nothing was decided. */
  repeated: boolean;
}

export class Aggregate<C, E extends DomainEvent, S> {
  private readonly cache: StateCache<C, E, S>;

  constructor(
    store: EventStore,
    readonly decider: Decider<C, E, S>,
    /** The stream of an aggregate id (the identity for aggregates keyed by their stream). */
    readonly streamOf: (id: string) => string,
    private readonly readModel?: ReadYourWrites,
  ) {
    this.cache = new StateCache(store, decider);
  }

  /**
   * Load, decide, append at the revision decided on, once per `key`. The decision is optimistic, on the
   * cached state (a stream never seen: its initial state), and exact all the same: a stale state's append
   * fails on its revision and is decided again on the stream's tail, and a refusal or a no-op decided on
   * a cached state is decided again on a read before it stands.
   */
  async handle(id: string, command: C | ((state: S) => C), options: HandleOptions = {}): Promise<Handled<S, E>> {
    if (options.await === 'readModel' && !this.readModel) throw new Error(`${this.constructor.name}: await 'readModel' needs the service's read model`);
    const streamId = this.streamOf(id);
    const metadata: EventMetadata = {};
    if (options.projectId !== undefined) metadata.projectId = options.projectId;
    if (options.key !== undefined) metadata.commandId = options.key;
    let before: S = this.decider.initialState;
    const result = await this.cache.execute(streamId, (state: S) => {
      before = state;
      return typeof command === 'function' ? (command as (s: S) => C)(state) : command;
    }, metadata, { optimistic: true, once: options.key, beforeAppend: options.beforeAppend });
    const handled: Handled<S, E> = { ...result, before: result.repeated ? result.state : before, repeated: result.repeated === true };
    if (options.await === 'readModel') await this.readModel!.waitFor(handled.position, streamId);
    return handled;
  }

  /** The state at the stream's head (exact: the cached state read on from its revision). `seen`: a revision known to exist; a cached state that has it needs no read. */
  load(id: string, seen?: number): Promise<Loaded<S>> {
    return this.cache.load(this.streamOf(id), seen);
  }

  /** The cached state, without a read (undefined when this process has not seen the stream). */
  peek(id: string): Loaded<S> | undefined {
    return this.cache.peek(this.streamOf(id));
  }

  /** Whether an event of the stream carries `key` (a command applied already), with the state just read. */
  applied(id: string, key: string): Promise<{ applied: boolean; loaded: Loaded<S> }> {
    return this.cache.applied(this.streamOf(id), key);
  }
}
