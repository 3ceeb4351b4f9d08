// The matcher: one active process (a PostgreSQL advisory lock held on a connection of its own; a standby
// tries every tick and takes over as soon as the holder's connection is gone), which every tick runs the
// pure matching step over each queue in memory and records each proposal on its match's stream. The
// match's id is derived from its lobbies and their tickets, so a step repeated after a crash proposes
// the same match, which the Match decider answers without a second one. The step over a queue is its
// incremental index's (QueueBook.step), run in the queue worker (queue-book-proxy.ts) so this event loop
// only waits for it. What follows a proposal is the match-formation workflow's.
import { hostname } from 'node:os';
import type { Pool } from 'pg';
import { LobbyConfig, MatchLobby, MatchmakingMode, MatchProposal } from '@spawnpoint/domain';
import { Clock, failpoint } from '@spawnpoint/platform';
import { logger } from '@spawnpoint/logging';
import { Leadership } from '@spawnpoint/read-models';
import { fillOpen } from './backfill-fill';
import { fillKey } from './match-id';
import { OpenMatches } from './open-matches';
import type { QueueId } from './queue-book';
import { QueueBookProxy } from './queue-book-proxy';

const log = logger('matchmaking');

const LOCK_CLASS = 7_402_013;
/** Tickets arriving within this long share a round. */
const NUDGE_MS = 5;
const LOCK_KEY = 'matcher';
/** Proposals of one round recorded at once (each its own stream, so they never contend). */
const PROPOSE_CONCURRENCY = 64;

export interface MatcherDeps {
  book: QueueBookProxy;
  /** Games whose mode allows backfill. */
  open: OpenMatches;
  pool: Pool;
  clock: Clock;
  /** The lobby configuration (with its modes) of a project, or null when it is gone. */
  config(projectId: string, config: string): Promise<LobbyConfig | null>;
  /**
   * Records the proposal on `match-<id>` (idempotent for the same proposal); resolves whether the match is
   * over already (the same proposal made earlier, and finished: no event will let its lobbies go).
   */
  propose(proposal: MatchProposal, now: string): Promise<{ over: boolean }>;
  /** Records a fill of a game's freed slots on its match stream. */
  proposeFill(matchId: string, lobby: MatchLobby, team: number, now: string): Promise<void>;
}

export class Matcher {
  private timer: NodeJS.Timeout | null = null;
  private readonly leadership: Leadership;
  private running: Promise<void> | null = null;
  /** A round asked for while one ran: run another when it ends. */
  private again = false;
  private nudged: NodeJS.Timeout | null = null;
  private stopped = false;
  /** Proposals recorded so far by this process (a figure for benches and tests). */
  proposals = 0;

  constructor(private readonly deps: MatcherDeps, private readonly tickMs: number) {
    this.leadership = new Leadership(deps.pool, LOCK_CLASS, LOCK_KEY);
  }

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.tickMs);
    this.timer.unref();
  }

  get leading(): boolean {
    return this.leadership.leading;
  }

  /** One round now, or right after the one running. */
  tick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.round().catch((err) => log.error(`matcher: ${(err as Error).message}`)).finally(() => {
      this.running = null;
      if (this.again) {
        this.again = false;
        void this.tick();
      }
    });
    return this.running;
  }

  /**
   * A ticket came or went back: a round soon (coalesced over NUDGE_MS), not at the next tick, so a match
   * waits for the tick only when it waits for a window to grow.
   */
  nudge(): void {
    if (this.nudged || this.stopped || !this.leading) return;
    this.nudged = setTimeout(() => {
      this.nudged = null;
      void this.tick();
    }, NUDGE_MS);
  }

  private async round(): Promise<void> {
    if (!(await this.lead())) return;
    const now = this.deps.clock().toISOString();
    for (const queue of await this.deps.book.queues()) {
      if (this.stopped || !this.leading) return;
      const config = await this.deps.config(queue.projectId, queue.config).catch(() => null);
      const mode = config?.modes[queue.mode];
      if (!mode) continue;
      // Backfill is served before new matches.
      if (mode.allowBackfill) await this.fill(queue, mode, now);
      // Recorded side by side, PROPOSE_CONCURRENCY at a time: one after the other, a round of 30 proposals took
      // 300 ms under load (an append's round trip each), and every ticket arriving meanwhile waited for it.
      let batch: MatchProposal[] = [];
      for await (const proposal of this.deps.book.step(queue, mode, now)) {
        batch.push(proposal);
        if (batch.length >= PROPOSE_CONCURRENCY) {
          await Promise.all(batch.map((p) => this.record(p, now)));
          batch = [];
        }
      }
      await Promise.all(batch.map((p) => this.record(p, now)));
    }
  }

  /** Records one proposal; a proposal not recorded (or not known to be) frees its lobbies (a retry proposes the same id). */
  private async record(proposal: MatchProposal, now: string): Promise<void> {
    try {
      if ((await this.deps.propose(proposal, now)).over) this.deps.book.matchOver(proposal.matchId);
      else this.proposals++;
      failpoint('matcher.after-propose');
    } catch (err) {
      this.deps.book.matchOver(proposal.matchId);
      log.error(`matcher: could not propose match ${proposal.matchId}: ${(err as Error).message}`);
    }
  }

  /** One lobby per game with freed slots (one fill in flight per match), the oldest that fits. */
  private async fill(queue: QueueId, mode: MatchmakingMode, now: string): Promise<void> {
    const nowMs = Date.parse(now);
    for (const game of [...this.deps.open.withFreeSlots(queue.projectId, queue.config, queue.mode)]) {
      if (!fillOpen(game, mode, nowMs)) continue;
      // Picked and held in the worker at once (fillCandidate over the queue's free lobbies).
      const key = fillKey(game.match.matchId);
      const pick = await this.deps.book.fill(queue, game, mode, nowMs, key);
      if (!pick) continue;
      try {
        await this.deps.proposeFill(game.match.matchId, pick.lobby, pick.team, now);
      } catch (err) {
        this.deps.book.matchOver(key);
        log.error(`matcher: could not propose a fill of match ${game.match.matchId}: ${(err as Error).message}`);
      }
    }
  }

  /** Holds the lock, or takes it if free. */
  private async lead(): Promise<boolean> {
    const lead = await this.leadership.try();
    // The host name tells replicas apart in containers, where every app is pid 1.
    if (lead === 'new') log.info(`matchmaking: this process (${hostname()} pid ${process.pid}) is the active matcher`);
    return lead !== false;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.nudged) clearTimeout(this.nudged);
    await this.running;
    await this.leadership.close();
  }
}
