// What the queue worker answers (queue-book.worker.ts): each question a function of its QueueBook, run
// where the book lives, so only the answer crosses to the main thread (a step's proposals, a fill's pick,
// an explanation, the figures), never a queue. The deltas are QueueBook's own methods, named here.
import { explainTicket, type MatchmakingMode, type MatchProposal, type QueueTicket } from '@spawnpoint/domain';
import type { QueueStatsEntry } from '@spawnpoint/proto';
import { fillCandidate } from './backfill-fill';
import { matchIdOf } from './match-id';
import type { OpenGame } from './open-matches';
import { QueueBook, type QueueId } from './queue-book';

/** The changes the book hears, in order (fire and forget). */
export const BOOK_DELTAS = {
  put: (book: QueueBook, lobbyId: string, q: QueueTicket) => book.put(lobbyId, q),
  remove: (book: QueueBook, lobbyId: string) => book.remove(lobbyId),
  hold: (book: QueueBook, key: string, lobbyId: string) => book.hold(key, lobbyId),
  matchOver: (book: QueueBook, matchId: string) => book.matchOver(matchId),
  clear: (book: QueueBook) => book.clear(),
  /** The tickets table's rows (a start, or a new worker). */
  load: (book: QueueBook, rows: [string, QueueTicket][]) => {
    for (const [lobbyId, q] of rows) book.put(lobbyId, q);
  },
};

const idOf = ({ projectId, config, mode }: QueueId): QueueId => ({ projectId, config, mode });

/**
 * A step's proposals cross a page at a time: the main thread copies what it reads (a structured clone),
 * and 50,000 proposals at once would block its loop as long as the step itself. The matcher records them
 * one by one anyway. Only the last step's pages are kept (the matcher reads each step to its end).
 */
const PAGE = 1000;
let lastStep: { id: number; proposals: MatchProposal[]; at: number } = { id: 0, proposals: [], at: 0 };
export interface StepPage { proposals: MatchProposal[]; more: number | null }
function pageOf(step: typeof lastStep): StepPage {
  const proposals = step.proposals.slice(step.at, (step.at += PAGE));
  return { proposals, more: step.at < step.proposals.length ? step.id : null };
}

/** The questions it answers (request/reply). */
export const BOOK_QUERIES = {
  /** Every queue (proposed lobbies included: they are still searching). */
  queues: (book: QueueBook): QueueId[] => [...book.all()].map(idOf),

  /** The matches the queue forms now under `mode` (their lobbies are taken until their outcome is known): the first page. */
  step: (book: QueueBook, id: QueueId, mode: MatchmakingMode, now: string): StepPage => {
    const queue = book.queue(id);
    lastStep = { id: lastStep.id + 1, proposals: queue ? book.step(queue, mode, now, matchIdOf) : [], at: 0 };
    return pageOf(lastStep);
  },

  /** The next page of step `more`. */
  stepPage: (_book: QueueBook, more: number): StepPage => (more === lastStep.id ? pageOf(lastStep) : { proposals: [], more: null }),

  /** The oldest free lobby that fills the game's free slots, held for `key` at once (as a step takes its lobbies). */
  fill: (book: QueueBook, id: QueueId, game: OpenGame & { free: number[] }, mode: MatchmakingMode, nowMs: number, key: string) => {
    const queue = book.queue(id);
    const pick = queue ? fillCandidate(game, mode, book.free(queue), nowMs) : null;
    if (pick) book.hold(key, pick.lobby.lobbyId);
    return pick;
  },

  /** A lobby's ticket in the book, and the match (or fill) holding it. */
  ticketOf: (book: QueueBook, lobbyId: string) => {
    const at = book.ticketOf(lobbyId);
    return at ? { queue: idOf(at.queue), ticket: at.ticket, proposedFor: at.proposedFor } : null;
  },

  lobbyOf: (book: QueueBook, projectId: string, config: string, playerId: string) => book.lobbyOf(projectId, config, playerId),

  /** Why a queued lobby has not matched: from its queue's index when it was built for this mode (O(log n + k)), else a scan. */
  explain: (book: QueueBook, lobbyId: string, mode: MatchmakingMode, now: string) => {
    const at = book.ticketOf(lobbyId);
    if (!at) return null;
    const { queue, ticket, proposedFor } = at;
    const indexed = queue.engine?.mode === JSON.stringify(mode) ? queue.engine.index.explain(lobbyId, now) : null;
    return { region: ticket.region, proposedFor, why: indexed ?? explainTicket(mode, ticket, [...queue.tickets.values()], now) };
  },

  /** Lobbies and players per (project, config, mode, region) now. */
  counts: (book: QueueBook): QueueStatsEntry[] => {
    const out = new Map<string, QueueStatsEntry>();
    for (const q of book.all()) {
      for (const t of q.tickets.values()) {
        const k = `${q.projectId}\u0000${q.config}\u0000${q.mode}\u0000${t.region}`;
        let e = out.get(k);
        if (!e) out.set(k, (e = { projectId: q.projectId, config: q.config, mode: q.mode, region: t.region, playersSearching: 0, lobbiesInQueue: 0, avgWaitSeconds: 0 }));
        e.lobbiesInQueue++;
        e.playersSearching += t.players.length;
      }
    }
    return [...out.values()];
  },

  size: (book: QueueBook) => book.size,
};

export type BookDeltas = typeof BOOK_DELTAS;
export type BookQueries = typeof BOOK_QUERIES;
type Rest<F> = F extends (book: QueueBook, ...args: infer A) => unknown ? A : never;
export type DeltaArgs<K extends keyof BookDeltas> = Rest<BookDeltas[K]>;
export type QueryArgs<K extends keyof BookQueries> = Rest<BookQueries[K]>;
export type QueryAnswer<K extends keyof BookQueries> = ReturnType<BookQueries[K]>;

/** Main thread → worker (in batches, in order): a delta, or a question with its correlation id. Worker → main: the answer. */
export type ToWorker =
  | { delta: keyof BookDeltas; args: unknown[] }
  | { id: number; query: keyof BookQueries; args: unknown[] };
export type FromWorker = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };
