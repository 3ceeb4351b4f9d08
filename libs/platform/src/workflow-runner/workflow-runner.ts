// Runs workflows (libs/domain/src/workflow): each subscribes to the store from its checkpoint, folds every
// instance's state, and stores the new states, its timers and the intents it decided together with the
// checkpoint, in one statement (one round trip; the leader keeps the states it stored in memory, so a
// decision usually reads nothing); the intents are then dispatched from that outbox and deleted once done.
// The leader also keeps the intents it wrote and sends them without reading the outbox back; it reads the
// outbox when it may hold others (on taking the lead, on each tick, after a failed dispatch or write).
// A crash between a dispatch and its delete dispatches the intent again with the same key (the command
// id): at-least-once dispatch, made effectively-once by the services' command-id handling. Timers are
// rows; due ones (by the injected clock) are fed to their instance, also after a restart, so a timer
// that fell due while nothing ran fires then. One bad event never stops a workflow: it is retried alone,
// then parked (parked_events, under 'workflow:<name>') and skipped. A database failure parks nothing: the
// workflow reads again from its checkpoint. One runner per workflow is active at a time (an advisory
// lock); others stand by. A workflow's first run on a database folds the history already there without
// sending its commands again (they were done by whatever ran before it); its timers are kept, so a TTL
// or a timeout still pending fires. See docs/adr/0010-workflows.md.
import type { CommandIntent, DomainEvent, Intent, Workflow } from '@spawnpoint/domain';
import { EventStore, RecordedEvent } from '@spawnpoint/eventstore';
import { isInfrastructureError } from '@spawnpoint/messaging';
import { logger } from '@spawnpoint/logging';
import { Leadership, readModelsPool, ReadModels } from '@spawnpoint/read-models';
import type { Pool } from 'pg';
import { insertParked, registerProjection, storableError } from '../projections/parked-events';
import { EventFeed } from '../runner/event-feed';
import { inPgTransaction } from '../projections/pg-transaction';
import type { SqlTx } from '../projections/projection-runner';
import {
  Changes, checkpointName, noChanges, PendingIntent, firstRunHead, intentFailed, intentsDone, loadCheckpoint, loadStates, pendingIntents, saveCheckpoint, takeDueTimers, timerSlot, writeChanges,
} from './workflow-tables';

const log = logger('workflows');

/** Sends one command intent (the services map it to a bus request with `intent.key` as its command id). */
export type IntentDispatcher = (intent: CommandIntent, origin: { workflow: string; instance: string }) => Promise<void>;

export type AnyWorkflow = Workflow<any, any, Intent<any, any>>;

export interface WorkflowRunnerOptions {
  /** The clock timers are due by. Default: the system clock. */
  now?: () => Date;
  /** How often due timers and intents waiting for a retry are looked for. Default 1000 ms. */
  pollMs?: number;
  /** Attempts at an event that fails alone before it is parked. Default 3. */
  poisonAttempts?: number;
  poisonBackoffMs?: number;
  /** Dispatch attempts of one intent before it is given up (kept, with failed_at and its error). Default 10. */
  dispatchAttempts?: number;
  /** Wait before the second dispatch attempt, doubling up to a minute. Default 500 ms. */
  dispatchBackoffMs?: number;
  /** stop() waits this long for a dispatch in flight. Default 5000 ms. */
  stopGraceMs?: number;
  /**
   * A dispatch not settled after this counts as failed and is retried (with the same key, so a late
   * success of the first try is harmless): one hung request must not hold up the whole outbox. Default 30 s.
   */
  dispatchTimeoutMs?: number;
  /**
   * A sent intent is deleted by the workflow's next write, in the same statement (usually within
   * milliseconds: the command sent answers with an event the workflow reads); after this long without one,
   * alone. Default 50 ms.
   */
  deleteWaitMs?: number;
  /** Work of the runner (a batch, a timer round, a dispatch) taking longer than this is logged, once. Default 10 s. */
  slowWarnMs?: number;
  /** Instances whose intents are sent side by side (each instance's in order). Default DEFAULT_DISPATCH_CONCURRENCY. */
  dispatchConcurrency?: number;
}

/**
 * One at a time, a burst of 500 matches (4,000 intents, each a bus round trip) outlived the matches' own
 * deadlines; 16 left the matchmaking bench's burst waiting on the slots (ADR-0010). The platform's setting
 * (SPAWNPOINT_WORKFLOW_DISPATCH_CONCURRENCY) defaults to this too.
 */
export const DEFAULT_DISPATCH_CONCURRENCY = 64;

/** Outbox rows read per dispatch pass. */
const PAGE = 500;
const HIGH_WATER = 5_000;
const RETRY_MS = 1_000;
const LOCK_CLASS = 7_402_010;
/** The tick reads the outbox at least this often even when nothing says it holds intents memory lacks. */
const OUTBOX_RECHECK_MS = 10_000;
/** Instance states kept in memory while leading (the oldest are dropped past this; they are read again). */
const MAX_CACHED_STATES = 20_000;

/** `silent`: folded, timers kept, commands not sent (history from before the workflow's first run). */
type Input = { event: DomainEvent; keys: string[]; silent?: boolean };

export class WorkflowRunner {
  private readonly loops: WorkflowLoop[];

  constructor(store: EventStore, db: ReadModels, workflows: AnyWorkflow[], dispatch: IntentDispatcher, options: WorkflowRunnerOptions = {}) {
    this.loops = workflows.map((w) => new WorkflowLoop(store, db, w, dispatch, options));
  }

  get names(): string[] {
    return this.loops.map((l) => checkpointName(l.workflow.name));
  }

  /** Resolves once each workflow is active (caught up with the store) or standing by behind another runner. */
  async start(): Promise<void> {
    await Promise.all(this.loops.map((l) => l.start()));
  }

  /** Fires due timers and dispatches pending intents now (the poll does it every `pollMs`). */
  async tick(): Promise<void> {
    await Promise.all(this.loops.map((l) => l.tick()));
  }

  /** Resolves when every event committed before the call is decided and every intent due so far dispatched. */
  async idle(): Promise<void> {
    await Promise.all(this.loops.map((l) => l.idle()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.loops.map((l) => l.stop()));
  }
}

class WorkflowLoop {
  private readonly pool: Pool;
  private readonly now: () => Date;
  private readonly opts: Required<Omit<WorkflowRunnerOptions, 'now'>>;
  /** The events, batches and fault rules: the runner core's (runner/event-feed.ts), subscribed while leading. */
  private readonly feed: EventFeed;
  /** Events up to here are history from before the first run (see the top). */
  private silentUntil = 0n;
  /** Every change of states runs in this chain: event batches and timer firings never interleave. */
  private chain: Promise<void> = Promise.resolve();
  private draining: Promise<void> | null = null;
  private drainAgain = false;
  /** Wakes the drain loop early: new intents while chains are sending. */
  private wake: (() => void) | null = null;
  /** Instance key → its chain of intents being sent (one at a time per instance). */
  private readonly running = new Map<string, Promise<void>>();
  /** Intents queued, being sent, or sent and not yet deleted: never read into a second chain. */
  private readonly claimed = new Set<string>();
  /** Instances whose later intents were left out of the last read because they were sending. */
  private readonly backlogged = new Set<string>();
  /** Instances whose chain ended since the drain loop last looked. */
  private readonly ended: string[] = [];
  /** Position of the last event decided that concerned no instance: the checkpoint not yet saved (see flush). */
  private unsaved: bigint | null = null;
  /** Intents were added since the last dispatch pass began. */
  private outboxChanged = false;
  /** Intents this leader wrote and has not yet taken into a chain, in outbox order (see takeFresh). */
  private fresh: PendingIntent[] = [];
  /**
   * The outbox may hold due intents that `fresh` lacks (left by an earlier leader, behind a failed dispatch,
   * from a write whose outcome is unknown): the next pass reads it (readChains) instead of taking `fresh`.
   */
  private outboxDirty = true;
  /** When the outbox was last read (the injected clock's ms). */
  private outboxReadAt = -Infinity;
  private poll: NodeJS.Timeout | null = null;
  /** The workflow's lead: one runner per workflow acts (its lock on a connection of its own, not the read-model pool's). */
  private readonly leadership: Leadership;
  private stopped = false;
  /**
   * Instance states as stored, while this runner leads: the only writer then, so a decision reads no
   * state it wrote itself. Cleared whenever that may not hold (lead lost or taken, a failed write).
   */
  private readonly cache = new Map<string, unknown>();
  private sentIds: string[] = [];
  /** Work being watched (see watched): stop() abandons what is still running. */
  private readonly watches = new Set<() => void>();
  private deleting: Promise<void> | null = null;
  private deleteTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: EventStore,
    private readonly db: ReadModels,
    readonly workflow: AnyWorkflow,
    private readonly dispatch: IntentDispatcher,
    options: WorkflowRunnerOptions,
  ) {
    this.pool = readModelsPool(db);
    this.leadership = new Leadership(this.pool, LOCK_CLASS, workflow.name, () => this.lostLead());
    this.now = options.now ?? (() => new Date());
    this.opts = {
      pollMs: options.pollMs ?? 1_000,
      poisonAttempts: Math.max(1, options.poisonAttempts ?? 3),
      poisonBackoffMs: options.poisonBackoffMs ?? 100,
      dispatchAttempts: Math.max(1, options.dispatchAttempts ?? 10),
      dispatchBackoffMs: options.dispatchBackoffMs ?? 500,
      stopGraceMs: options.stopGraceMs ?? 5_000,
      dispatchTimeoutMs: options.dispatchTimeoutMs ?? 30_000,
      dispatchConcurrency: Math.max(1, options.dispatchConcurrency ?? DEFAULT_DISPATCH_CONCURRENCY),
      slowWarnMs: options.slowWarnMs ?? 10_000,
      deleteWaitMs: options.deleteWaitMs ?? 50,
    };
    this.feed = this.eventFeed();
  }

  private get name(): string {
    return this.workflow.name;
  }

  async start(): Promise<void> {
    await registerProjection(this.db, checkpointName(this.name), [...this.workflow.categories]);
    this.poll = setInterval(() => void this.tick(), this.opts.pollMs);
    this.poll.unref();
    if (await this.lead()) await this.catchUp();
  }

  /** 'new' when this runner just took the lead (it then subscribes), 'held' when it already led, false when another runner leads. */
  private async lead(): Promise<'new' | 'held' | false> {
    if (this.stopped) return false;
    const lead = await this.leadership.try();
    if (lead === 'new') await this.feed.subscribe();
    return lead;
  }

  private lostLead(): void {
    this.cache.clear();
    this.forgetFresh();
    this.feed.close();
  }

  /** Decided up to the head (dispatch goes on in the background: a slow service must not hold up a start). */
  private async catchUp(): Promise<void> {
    await this.decided();
    void this.drain();
  }

  private async decided(): Promise<void> {
    await this.feed.caughtUp();
    await this.feed.idle();
    await this.chain;
  }

  async tick(): Promise<void> {
    if (this.stopped) return;
    try {
      const lead = await this.lead();
      if (!lead) return;
      // Taking over: the events the last leader left undecided come before its timers.
      if (lead === 'new') await this.decided();
      await this.serial(() => this.watched('the due timers', this.fireDueTimers()));
      await this.serial(() => this.saveUnsaved());
      // Intents waiting for a retry, or left unsent or undeleted, are the outbox's to tell: each of those
      // paths marks it dirty. Otherwise this leader knows every intent it holds, and reading a busy outbox
      // every second read hundreds of intents already being sent (3 % of PostgreSQL's time at 200 matched
      // lobbies a second); it is read now and then all the same (OUTBOX_RECHECK_MS), in case.
      if (this.now().getTime() - this.outboxReadAt >= OUTBOX_RECHECK_MS) this.outboxDirty = true;
      await this.drain();
      await this.deleteSent();
    } catch (err) {
      if (!this.stopped) log.error(`workflow ${this.name}: tick failed: ${(err as Error).message ?? String(err)}`);
    }
  }

  async idle(): Promise<void> {
    await this.decided();
    await this.drain();
    // A write may be deleting sent intents with its own changes (markSent): let it end, then delete the rest.
    await this.chain;
    await this.deleteSent();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    if (this.poll) clearInterval(this.poll);
    await this.feed.stop();
    await this.chain.catch(() => undefined);
    await this.saveUnsaved().catch(() => undefined);
    // A dispatch that hangs is abandoned: its intent stays in the outbox and the next runner sends it again.
    if (this.draining) await Promise.race([this.draining.catch(() => undefined), sleep(this.opts.stopGraceMs)]);
    for (const abandon of [...this.watches]) abandon();
    await this.deleteSent();
    await this.leadership.close();
  }

  // ---- events --------------------------------------------------------------------------------------

  /** The workflow as a policy of the runner core: where it starts, how a batch is decided and stored, how an event is parked. */
  private eventFeed(): EventFeed {
    return new EventFeed(this.store, {
      label: `workflow ${this.name}`,
      component: 'workflows',
      categories: this.workflow.categories,
      from: async () => {
        this.silentUntil = await firstRunHead(this.pool, this.name, () => this.store.headPosition([...this.workflow.categories]));
        const from = (await loadCheckpoint(this.pool, this.name)) ?? 0n;
        this.unsaved = null;
        this.cache.clear();
        this.forgetFresh();
        return from;
      },
      batch: (batch) => this.decideBatch(batch),
      alone: async (event) => {
        await this.write(await this.fold([this.input(event)]), event.position);
        this.unsaved = null;
      },
      healthy: async () => {
        await this.pool.query('SELECT 1');
      },
      park: async (event, error, attempts, firstFailedAt) => {
        await this.transaction(async (sql) => {
          await insertParked(sql, checkpointName(this.name), event, error, attempts, firstFailedAt);
          await saveCheckpoint(sql, this.name, event.position);
        });
        this.unsaved = null;
      },
      serial: (pass) => this.serial(pass),
      passed: () => {
        if (this.outboxChanged) void this.drain();
      },
      // A runner that lost its lead reads again only once it leads again (lead() subscribes).
      resubscribe: () => this.leadership.leading,
    }, { poisonAttempts: this.opts.poisonAttempts, poisonBackoffMs: this.opts.poisonBackoffMs, retryMs: RETRY_MS, maxRetryMs: RETRY_MS });
  }

  private async decideBatch(batch: RecordedEvent[]): Promise<void> {
    const last = batch[batch.length - 1].position;
    const inputs = batch.map((e) => this.input(e));
    // Most events of a category concern no instance (a lobby's joins, to the lobby-server workflow): they
    // change no state, timer or intent, so they cost no transaction. The checkpoint past them is saved
    // with the next batch that does, or by the tick; reading them again after a crash changes nothing.
    if (!inputs.some((i) => i.keys.length > 0)) {
      this.unsaved = last;
      return;
    }
    await this.watched(`a batch of ${batch.length} event(s) up to position ${last}`, (async () => {
      const c = await this.fold(inputs);
      // Events that left every state they reached as it was (a lobby-server instance hearing a pool
      // claim) are like those that reach none: nothing to store, the checkpoint waits.
      if (c.states.size === 0 && c.timers.size === 0 && c.intents.length === 0) {
        this.unsaved = last;
        return;
      }
      await this.write(c, last);
      this.unsaved = null;
    })());
  }

  // ---- deciding --------------------------------------------------------------------------------------

  /**
   * Folds the inputs into their instances: the changes to store. `earlier`: changes of this same write
   * not stored yet (the timers of one tick), which the fold reads on from. States not in memory are read
   * through `sql` (the pool, or the timers' transaction).
   */
  private async fold(inputs: Input[], earlier?: Changes, sql: SqlTx = this.pool): Promise<Changes> {
    const c = noChanges();
    // A stateless workflow's instances are always at initialState: nothing to read or store (Workflow.stateless).
    const stateless = this.workflow.stateless === true;
    // An instance whose first event here starts it over needs no read (Workflow.startsOver).
    const first = new Map<string, DomainEvent>();
    if (!stateless) for (const { event, keys } of inputs) for (const key of keys) if (!first.has(key)) first.set(key, event);
    const startsOver = this.workflow.startsOver?.bind(this.workflow);
    const unknown = stateless ? [] : [...first].filter(([k, e]) => !this.cache.has(k) && !earlier?.states.has(k) && !startsOver?.(e)).map(([k]) => k);
    const stored = await loadStates(sql, this.name, unknown);
    // A state read and left as it was is kept in memory (not read again), not written.
    for (const [key, state] of stored) if (!this.cache.has(key)) this.cache.set(key, state);
    this.trimCache();
    const current = (key: string) => {
      for (const m of [c.states, earlier?.states, this.cache, stored]) if (m?.has(key)) return m.get(key);
      return this.workflow.initialState;
    };
    for (const { event, keys: targets, silent } of inputs) {
      for (const key of targets) {
        const before = current(key);
        const after = this.workflow.evolve(before, event);
        // Unchanged (evolve returned the same object): nothing to write, unless this event starts the
        // instance over (a row from before may hold another state).
        if (!stateless && (after !== before || (first.get(key) === event && startsOver?.(event)))) c.states.set(key, after);
        for (const intent of this.workflow.react(after, event) as Intent[]) {
          if (intent.kind === 'command') {
            if (!silent) c.intents.push({ key, intent });
          } else {
            c.timers.set(timerSlot(key, intent.id), { key, id: intent.id, set: intent.kind === 'timer' ? { at: intent.at, event: intent.then } : null });
          }
        }
      }
    }
    return c;
  }

  /** Stores the changes (with the checkpoint, if any) in one statement, and remembers them. */
  private async write(c: Changes, position: bigint | null): Promise<void> {
    let ids: string[];
    // Intents sent since the last write leave the outbox with this one (markSent).
    const sent = this.sentIds.splice(0);
    try {
      ids = await writeChanges(this.pool, this.name, c, position, sent);
    } catch (err) {
      // The write may have happened even so (a lost answer): read the states, and the outbox, again; delete
      // the sent intents again (a second delete of a row is nothing).
      this.cache.clear();
      this.outboxDirty = true;
      for (const id of sent) this.markSent(id);
      throw err;
    }
    for (const id of sent) this.claimed.delete(id);
    this.stored(c, ids);
  }

  /** Changes now committed: their states are what is stored; their intents wait in the outbox (`ids`), and in `fresh`. */
  private stored(c: Changes, ids: string[]): void {
    if (c.intents.length > 0) {
      this.outboxChanged = true;
      if (ids.length !== c.intents.length || this.fresh.length + ids.length > HIGH_WATER) this.forgetFresh();
      else c.intents.forEach(({ key, intent }, i) => this.fresh.push({ id: ids[i], key, intent, attempts: 0, due: true }));
    }
    for (const [key, state] of c.states) {
      this.cache.delete(key);
      this.cache.set(key, state);
    }
    this.trimCache();
  }

  /** The least recently stored states go first. */
  private trimCache(): void {
    for (const key of this.cache.keys()) {
      if (this.cache.size <= MAX_CACHED_STATES) break;
      this.cache.delete(key);
    }
  }

  /** Due timers, fed to their instances and stored (the fired timers deleted) in one transaction a round. */
  private async fireDueTimers(): Promise<void> {
    if (!this.leadership.leading) return;
    // Bounded per tick: a workflow that keeps setting a timer already due cannot hold the chain.
    for (let round = 0; round < 20; round++) {
      let fired = 0;
      const all = noChanges();
      let ids: string[] = [];
      try {
        await this.transaction(async (sql) => {
          for (const timer of await takeDueTimers(sql, this.name, this.now(), 100)) {
            fired++;
            all.timers.set(timerSlot(timer.key, timer.id), { key: timer.key, id: timer.id, set: null });
            let c: Changes;
            try {
              c = await this.fold([{ event: timer.event, keys: [timer.key] }], all, sql);
            } catch (err) {
              if (isInfrastructureError(err)) throw err;
              // A timer its workflow cannot decide is dropped (logged), not fired forever.
              log.error(`workflow ${this.name}: timer ${timer.id} of ${timer.key} failed and is dropped: ${storableError(err)}`);
              continue;
            }
            for (const [k, v] of c.states) all.states.set(k, v);
            for (const [k, v] of c.timers) all.timers.set(k, v);
            all.intents.push(...c.intents);
          }
          ids = await writeChanges(sql, this.name, all, null);
        });
      } catch (err) {
        // The commit may have happened even so: read the states, and the outbox, again.
        this.cache.clear();
        this.outboxDirty = true;
        throw err;
      }
      this.stored(all, ids);
      if (fired < 100) return;
    }
  }

  // ---- dispatch ------------------------------------------------------------------------------------

  /**
   * Sends the outbox in order per instance, instances side by side (up to dispatchConcurrency): an intent
   * waiting for a retry holds back its instance's later ones, and a slow dispatch holds back only its own
   * instance (intents added meanwhile start in the free slots). Resolves when nothing more can go now.
   */
  private drain(): Promise<void> {
    if (this.draining) {
      this.drainAgain = true;
      this.wake?.();
      return this.draining;
    }
    this.draining = (async () => {
      const queued: PendingIntent[][] = [];
      // New intents are taken once half the slots are free, not as each one frees: fewer, larger passes (taking
      // them as each slot freed cost a saturated matchmaking bench ~8 % of its rate, even from memory).
      const readNew = () => this.drainAgain && queued.length === 0 && this.running.size <= this.opts.dispatchConcurrency / 2;
      let read = true;
      let nextPage = false;
      while (!this.stopped && this.leadership.leading) {
        if (read || readNew()) {
          read = this.drainAgain = this.outboxChanged = false;
          nextPage = this.outboxDirty ? await this.readChains(queued) : this.takeFresh(queued);
        }
        while (queued.length > 0 && this.running.size < this.opts.dispatchConcurrency) this.startChain(queued.shift()!);
        if (queued.length === 0 && this.running.size === 0) {
          if (this.drainAgain) continue;
          // The page was full of intents now sent (and deleted): the next one may hold more.
          if (nextPage) {
            nextPage = false;
            await this.deleteSent();
            read = true;
            continue;
          }
          break;
        }
        // The next chain to end, or new intents (drain() again), whichever comes first.
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          if (this.ended.length > 0 || readNew()) resolve();
        });
        this.wake = null;
        // An instance whose later intents were left out while it sent: their turn now.
        if (this.ended.splice(0).some((key) => this.backlogged.has(key))) read = true;
      }
      // Stopped or no longer leading: what is still sending ends on its own; what waited is read again later.
      for (const chain of queued) for (const row of chain) this.claimed.delete(row.id);
      if (queued.length > 0) this.outboxDirty = true;
      await Promise.all(this.running.values());
    })().catch((err) => {
      if (!this.stopped) log.error(`workflow ${this.name}: dispatch failed: ${(err as Error).message ?? String(err)}`);
    }).finally(() => {
      this.draining = null;
      this.wake = null;
      // Asked again after the loop's last look (as with flush): go again rather than wait for the tick.
      if (this.drainAgain && !this.stopped) void this.drain();
    });
    return this.draining;
  }

  /**
   * Queues (and claims) the due intents of the instances neither sending nor queued, each instance's as one
   * chain in outbox order; claimed intents (queued, sending, or sent and not yet deleted) are left out of the
   * read. true when the page was full and some of it was queued: read on once those are sent (a page full of
   * intents waiting for a retry is not read again, or the loop would spin).
   */
  private async readChains(queued: PendingIntent[][]): Promise<boolean> {
    // The fresh intents written so far are committed, so this read sees them: it takes their place.
    const seen = this.fresh.length;
    this.outboxDirty = false;
    this.outboxReadAt = this.now().getTime();
    let rows: PendingIntent[];
    try {
      rows = await pendingIntents(this.pool, this.name, this.now(), PAGE, this.claimed);
    } catch (err) {
      this.outboxDirty = true;
      throw err;
    }
    const read = new Set(rows.map((r) => r.id));
    this.fresh = this.fresh.filter((row, i) => i >= seen && !read.has(row.id));
    const { chains } = this.chainsOf(rows, queued);
    // An instance whose first intent waits for a retry sends nothing now (the tick tries again when due).
    let waitingRetry = false;
    let queuedAny = false;
    for (const chain of chains.values()) {
      if (!chain[0].due) {
        waitingRetry = true;
        continue;
      }
      this.enqueue(chain, queued);
      queuedAny = true;
    }
    // Intents left in the outbox here (behind a chain, a retry, or past the page) are read again, not taken fresh.
    if (this.backlogged.size > 0 || waitingRetry || rows.length === PAGE) this.outboxDirty = true;
    return rows.length === PAGE && queuedAny;
  }

  /**
   * Queues the fresh intents as readChains queues the outbox's, without reading it: only while the outbox
   * holds nothing else due (outboxDirty false). Those of an instance sending or queued wait here for its turn.
   */
  private takeFresh(queued: PendingIntent[][]): boolean {
    const { chains, left } = this.chainsOf(this.fresh, queued);
    this.fresh = left;
    for (const chain of chains.values()) this.enqueue(chain, queued);
    return false;
  }

  /**
   * `rows` (in outbox order) as one chain per instance neither sending nor queued; claimed rows (queued,
   * sending, or sent and not yet deleted) are skipped (never taken twice), and those of an instance sending or
   * queued are left (`left`) for after its chain (`backlogged`).
   */
  private chainsOf(rows: PendingIntent[], queued: PendingIntent[][]): { chains: Map<string, PendingIntent[]>; left: PendingIntent[] } {
    const waiting = new Set(queued.map((chain) => chain[0].key));
    const chains = new Map<string, PendingIntent[]>();
    const left: PendingIntent[] = [];
    this.backlogged.clear();
    for (const row of rows) {
      if (this.claimed.has(row.id)) continue;
      if (this.running.has(row.key) || waiting.has(row.key)) {
        this.backlogged.add(row.key);
        left.push(row);
        continue;
      }
      const chain = chains.get(row.key);
      if (chain) chain.push(row);
      else chains.set(row.key, [row]);
    }
    return { chains, left };
  }

  /** Claims a chain's intents (never read into a second chain) and queues it. */
  private enqueue(chain: PendingIntent[], queued: PendingIntent[][]): void {
    for (const row of chain) this.claimed.add(row.id);
    queued.push(chain);
  }

  /** The fresh intents are no longer known whole: the outbox is read instead. */
  private forgetFresh(): void {
    this.fresh = [];
    this.outboxDirty = true;
  }

  /** Sends one instance's intents in order, stopping at the first not sent. */
  private startChain(chain: PendingIntent[]): void {
    const key = chain[0].key;
    const sent = new Set<string>();
    const run = (async () => {
      try {
        for (const row of chain) {
          if (this.stopped) return;
          if (!(await this.dispatchRow(row))) return; // not sent: its instance's later ones wait behind it
          if (this.stopped) return;
          sent.add(row.id);
          this.markSent(row.id);
        }
      } finally {
        // Sent ones stay claimed until deleted (markSent); the rest are read again from the outbox.
        for (const row of chain) if (!sent.has(row.id)) this.claimed.delete(row.id);
        if (sent.size < chain.length) this.outboxDirty = true;
        this.running.delete(key);
        this.ended.push(key);
        this.wake?.();
      }
    })().catch((err) => {
      if (!this.stopped) log.error(`workflow ${this.name}: dispatch of ${key}'s intents failed: ${(err as Error).message ?? String(err)}`);
    });
    this.running.set(key, run);
  }

  /**
   * Deletes a sent intent from the outbox without holding up the next dispatch: with the workflow's next
   * write, or alone after deleteWaitMs (deleteSent). Only what a crash interrupts is sent again.
   */
  private markSent(id: string): void {
    this.sentIds.push(id);
    if (this.deleteTimer || this.deleting) return;
    this.deleteTimer = setTimeout(() => void this.deleteSent(), this.opts.deleteWaitMs);
    this.deleteTimer.unref();
  }

  /** Deletes the sent intents no write took, now: ids sent while a delete runs go together in the next one. */
  private deleteSent(): Promise<void> {
    if (this.deleteTimer) clearTimeout(this.deleteTimer);
    this.deleteTimer = null;
    if (this.deleting || this.sentIds.length === 0) return this.deleting ?? Promise.resolve();
    return (this.deleting = (async () => {
      try {
        while (this.sentIds.length > 0) {
          const ids = this.sentIds.splice(0);
          await intentsDone(this.pool, ids).catch((err) => {
            this.outboxDirty = true;
            log.error(`workflow ${this.name}: could not delete ${ids.length} sent intent(s); they will be sent again: ${(err as Error).message ?? String(err)}`);
          });
          for (const id of ids) this.claimed.delete(id);
        }
      } finally {
        // In the same microtask as the loop's last look: an id sent later sets a new timer, never waits in sentIds.
        this.deleting = null;
      }
    })());
  }

  /** Sends one intent if it is due (not waiting for a retry); true when it was sent. */
  private async dispatchRow(row: PendingIntent): Promise<boolean> {
    if (!row.due) return false;
    try {
      await this.watched(`dispatch of ${row.intent.key}`, this.dispatch(row.intent, { workflow: this.name, instance: row.key }), this.opts.dispatchTimeoutMs);
      return true;
    } catch (err) {
      if (this.stopped) return false; // abandoned by stop(): the next runner sends it again
      const attempts = row.attempts + 1;
      // A dependency that does not answer (the target service down or restarting, the database) is waited out,
      // however long: the intent is the only record of the effect (issue 36). Only the work's own failures give up.
      const outage = isInfrastructureError(err);
      const giveUp = attempts >= this.opts.dispatchAttempts && !outage;
      const retryAt = giveUp ? null : new Date(this.now().getTime() + Math.min(this.opts.dispatchBackoffMs * 2 ** (Math.min(attempts, 20) - 1), 60_000));
      await intentFailed(this.pool, row.id, storableError(err), retryAt);
      const message = `workflow ${this.name}: dispatch of ${row.intent.key} failed (attempt ${attempts})${giveUp ? '; given up' : ''}: ${(err as Error).message ?? String(err)}`;
      if (outage) log.warn({ project_id: row.intent.target.projectId ?? undefined }, `${message}; retried once it answers`);
      else log.error({ project_id: row.intent.target.projectId ?? undefined }, message);
      return false;
    }
  }

  // ---- helpers -------------------------------------------------------------------------------------

  /** The checkpoint past events that concerned no instance (only while leading: a stand-by saves nothing). */
  private async saveUnsaved(): Promise<void> {
    const position = this.unsaved;
    if (position === null || !this.leadership.leading) return;
    await saveCheckpoint(this.pool, this.name, position);
    if (this.unsaved === position) this.unsaved = null;
  }

  private input(event: RecordedEvent): Input {
    const e: DomainEvent = { type: event.type, data: event.data };
    return { event: e, keys: this.workflow.route(e), silent: event.position <= this.silentUntil };
  }

  /**
   * `work`, logged if it runs longer than slowWarnMs (a stall shows what it was stuck in); with `timeoutMs`,
   * failed when it takes longer. stop() ends every watch (abandoned work, no late log, no timer left).
   */
  private watched<T>(what: string, work: Promise<T>, timeoutMs?: number): Promise<T> {
    const started = Date.now();
    return new Promise<T>((resolve, reject) => {
      const timers = [setTimeout(() => log.warn(`workflow ${this.name}: ${what} still running after ${Date.now() - started} ms`), this.opts.slowWarnMs)];
      if (timeoutMs !== undefined) timers.push(setTimeout(() => end(() => reject(new Error(`no answer in ${timeoutMs} ms`))), timeoutMs));
      for (const t of timers) t.unref();
      const end = (settle: () => void) => {
        if (!this.watches.delete(abandon)) return;
        for (const t of timers) clearTimeout(t);
        settle();
      };
      const abandon = () => end(() => reject(new Error(`workflow ${this.name} stopped`)));
      this.watches.add(abandon);
      work.then((v) => end(() => resolve(v)), (err) => end(() => reject(err)));
    });
  }

  private serial(fn: () => Promise<void>): Promise<void> {
    const run = this.chain.then(fn);
    this.chain = run.catch(() => undefined);
    return run;
  }

  private transaction(fn: (sql: SqlTx) => Promise<void>): Promise<void> {
    return inPgTransaction(this.pool, fn);
  }

}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
