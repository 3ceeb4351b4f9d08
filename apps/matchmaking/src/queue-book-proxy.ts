// The queues as the main thread sees them: a thin async proxy of the QueueBook that lives in a worker
// thread (queue-book.worker.ts), so a step over a large queue (~150 ms at 100,000 tickets) never blocks
// the event loop that serves requests (in standalone mode, every service's and the gateway's). Deltas are
// sent in order and not answered; a question (step, fill, explain, figures) is answered after every delta
// sent before it. A worker that dies is logged, replaced and reloaded from the tickets table; what it held
// in memory only (lobbies taken by proposals in flight) is lost as on a restart, and a step proposing the
// same match again gets the same id (match-id.ts), which the Match decider answers without a second one.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { MatchmakingMode, MatchProposal, QueueTicket } from '@spawnpoint/domain';
import { logger } from '@spawnpoint/logging';
import type { BookDeltas, BookQueries, DeltaArgs, FromWorker, QueryAnswer, QueryArgs, ToWorker } from './book-queries';
import type { OpenGame } from './open-matches';
import type { QueueId } from './queue-book';

const log = logger('matchmaking');

/** The tickets table's queued rows (lobby id, ticket): what a worker is loaded with. */
export type TicketRows = () => Promise<[string, QueueTicket][]>;

const RELOAD_RETRY_MS = 1000;
/** A worker that dies again this soon after the last start waits RESTART_DELAY_MS (a crash loop must not spin). */
const CRASH_LOOP_MS = 10_000;
const RESTART_DELAY_MS = 1000;
/** Tickets per load message: the main thread yields between them (copying 100,000 at once blocks it). */
const LOAD_CHUNK = 2000;

/** The worker's built JS: next to this file in dist; from src (jest runs the TS sources), the build's. */
export function workerScript(): string {
  const beside = path.join(__dirname, 'queue-book.worker.js');
  if (existsSync(beside)) return beside;
  const built = path.join(__dirname, '..', 'dist', 'queue-book.worker.js');
  if (existsSync(built)) return built;
  throw new Error(`matchmaking: no queue worker at ${built} (run npm run build)`);
}

export class QueueBookProxy {
  private worker!: Worker;
  private readonly pending = new Map<number, { resolve: (v: never) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  /** Messages of this tick, sent as one batch (a projection batch's deltas cross in one message). */
  private outbox: ToWorker[] = [];
  /** Messages held back while a new worker is reloaded: they follow its load. */
  private held: ToWorker[] | null = null;
  private rows: TicketRows | null = null;
  private generation = 0;
  private closed = false;
  private lastStart = 0;
  private restartTimer: NodeJS.Timeout | null = null;
  /** Workers started after one died. */
  restarts = 0;

  constructor(private readonly script = workerScript()) {
    this.spawn();
  }

  put(lobbyId: string, q: QueueTicket): void { this.send('put', lobbyId, q); }
  remove(lobbyId: string): void { this.send('remove', lobbyId); }
  hold(key: string, lobbyId: string): void { this.send('hold', key, lobbyId); }
  matchOver(matchId: string): void { this.send('matchOver', matchId); }
  clear(): void { this.send('clear'); }

  /**
   * Loads the tickets table's rows now (at a start, after the projection caught up: a ticket heard twice
   * is kept once), and again into any worker started after one died. Deltas and questions meanwhile wait
   * and follow the load.
   */
  async loadFrom(rows: TicketRows): Promise<void> {
    this.rows = rows;
    await this.reload(rows, ++this.generation, false);
  }

  queues(): Promise<QueueId[]> { return this.ask('queues'); }

  /** The matches the queue forms now under `mode` (their lobbies taken until their outcome is known), read a page at a time. */
  async *step(queue: QueueId, mode: MatchmakingMode, now: string): AsyncGenerator<MatchProposal> {
    let page = await this.ask('step', queue, mode, now);
    for (;;) {
      yield* page.proposals;
      if (page.more === null) return;
      page = await this.ask('stepPage', page.more);
    }
  }
  /** Picks the oldest free lobby that fits the game and holds it for `key`. */
  fill(queue: QueueId, game: OpenGame & { free: number[] }, mode: MatchmakingMode, nowMs: number, key: string): Promise<QueryAnswer<'fill'>> {
    return this.ask('fill', queue, game, mode, nowMs, key);
  }
  ticketOf(lobbyId: string): Promise<QueryAnswer<'ticketOf'>> { return this.ask('ticketOf', lobbyId); }
  lobbyOf(projectId: string, config: string, playerId: string): Promise<string | null> { return this.ask('lobbyOf', projectId, config, playerId); }
  explain(lobbyId: string, mode: MatchmakingMode, now: string): Promise<QueryAnswer<'explain'>> { return this.ask('explain', lobbyId, mode, now); }
  counts(): Promise<QueryAnswer<'counts'>> { return this.ask('counts'); }
  size(): Promise<number> { return this.ask('size'); }

  /** Stops the worker (the service stops): later deltas are dropped, questions refused. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.failPending(new Error('matchmaking: the queue worker is stopped'));
    await this.worker.terminate();
  }

  private send<K extends keyof BookDeltas>(delta: K, ...args: DeltaArgs<K>): void {
    if (!this.closed) this.dispatch({ delta, args });
  }

  private ask<K extends keyof BookQueries, T = QueryAnswer<K>>(query: K, ...args: QueryArgs<K>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('matchmaking: the queue worker is stopped'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: never) => void, reject });
      this.dispatch({ id, query, args });
    });
  }

  private dispatch(m: ToWorker): void {
    if (this.held) {
      this.held.push(m);
      return;
    }
    if (this.outbox.length === 0) queueMicrotask(() => this.post(this.outbox.splice(0)));
    this.outbox.push(m);
  }

  private post(batch: ToWorker[]): void {
    if (batch.length > 0 && !this.closed) this.worker.postMessage(batch);
  }

  private spawn(): void {
    const worker = new Worker(this.script);
    worker.on('message', (m: FromWorker) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.ok) p.resolve(m.value as never);
      else p.reject(new Error(`matchmaking queue worker: ${m.error}`));
    });
    worker.on('error', (err) => log.error({ err }, `matchmaking: the queue worker failed: ${String(err)}`));
    worker.on('messageerror', (err) => log.error(`matchmaking: a message from the queue worker could not be read: ${err.message}`));
    worker.on('exit', (code) => {
      if (worker === this.worker && !this.closed) this.restart(code);
    });
    this.worker = worker;
    this.lastStart = Date.now();
  }

  private restart(code: number): void {
    const delay = Date.now() - this.lastStart < CRASH_LOOP_MS && this.restarts > 0 ? RESTART_DELAY_MS : 0;
    log.error(`matchmaking: the queue worker exited (code ${code}); a new one starts${delay ? ` in ${delay} ms` : ''}, loaded from match_tickets`);
    this.failPending(new Error(`matchmaking: the queue worker exited (code ${code})`));
    this.restarts++;
    const generation = ++this.generation; // a load still sending to the dead worker stops
    this.held ??= []; // deltas and questions wait for the new worker's load
    const start = () => {
      this.restartTimer = null;
      this.spawn();
      if (this.rows) void this.reload(this.rows, generation, true);
      else this.flush(); // not loaded yet: the start's load fills it
    };
    if (delay) this.restartTimer = setTimeout(start, delay);
    else start();
  }

  /** Sends the table's rows to the worker; until then, deltas and questions wait (a delta heard now must follow the rows). */
  private async reload(rows: TicketRows, generation: number, retry: boolean): Promise<void> {
    this.held ??= [];
    const current = () => generation === this.generation && !this.closed; // else a newer load (or none) follows
    for (;;) {
      try {
        const loaded = await rows();
        for (let i = 0; i < loaded.length && current(); i += LOAD_CHUNK) {
          if (i > 0) await new Promise((r) => setImmediate(r));
          if (current()) this.post([{ delta: 'load', args: [loaded.slice(i, i + LOAD_CHUNK)] }]);
        }
        if (!current()) return;
        this.flush();
        if (retry) log.info(`matchmaking: the new queue worker holds the ${loaded.length} queued tickets`);
        return;
      } catch (err) {
        if (!retry) {
          if (current()) this.flush();
          throw err;
        }
        if (!current()) return;
        log.error(`matchmaking: the queue worker's reload failed (${(err as Error).message}); again in ${RELOAD_RETRY_MS} ms`);
        await new Promise((r) => setTimeout(r, RELOAD_RETRY_MS));
        if (!current()) return;
      }
    }
  }

  private flush(): void {
    const held = this.held ?? [];
    this.held = null;
    this.post(held);
  }

  private failPending(err: Error): void {
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    // Questions held for the dead worker were just refused: only the deltas still follow the load.
    if (this.held) this.held = this.held.filter((m) => 'delta' in m);
  }
}
