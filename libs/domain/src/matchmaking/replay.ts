// Rule replay: a recorded queue period run again under a mode (the current one or a proposed one), side by
// side with what really happened, so a studio can tune rules before changing them. Pure: the recorded
// lobby and match events of one (project, config, mode) in, figures out. The simulation feeds each
// ticket to a MatchQueue at its recorded time and steps every `tickMs`; a proposal is assumed to form
// (no cancels race it); searches end as recorded (cancel, leave, deletion) or at the mode's timeout.
import { DomainEvent } from '../kit';
import { LobbyEvent } from '../lobby';
import { MatchEvent } from './match';
import { MatchmakingMode } from './mode';
import { MatchQueue } from './queue';
import { DEFAULT_RATING } from './rating';
import type { Ticket } from './step';

export interface ReplayFigures {
  searches: number;
  matched: number;
  unmatched: number;
  /** Seconds from queueing to the match: p50, p90, p99. */
  timeToMatch: { p50: number; p90: number; p99: number };
  /** Mean over matches of (highest − lowest lobby rating). */
  meanRatingSpread: number;
  /** Mean over matches of (strongest − weakest team's rating sum). */
  meanTeamImbalance: number;
  matches: number;
}

export interface ReplayResult { actual: ReplayFigures; simulated: ReplayFigures }

type Recorded = DomainEvent & { data: { at: string } };

const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : 0);
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const round = (x: number) => Math.round(x * 100) / 100;

function figures(waitsS: number[], searches: number, spreads: number[], imbalances: number[]): ReplayFigures {
  const w = [...waitsS].sort((a, b) => a - b);
  return {
    searches, matched: w.length, unmatched: searches - w.length, matches: spreads.length,
    timeToMatch: { p50: round(pct(w, 50)), p90: round(pct(w, 90)), p99: round(pct(w, 99)) },
    meanRatingSpread: round(mean(spreads)), meanTeamImbalance: round(mean(imbalances)),
  };
}

/** A player's rating under the mode's difference rule (1000 without one, or without a number). */
function playerRating(mode: MatchmakingMode, state: Record<string, unknown>): number {
  const rule = mode.rules.find((r) => r.type === 'difference');
  const v = rule && rule.type === 'difference' ? state[rule.field] : undefined;
  return typeof v === 'number' && Number.isFinite(v) ? v : DEFAULT_RATING;
}

function matchFigures(mode: MatchmakingMode, lobbies: Ticket[], teams: string[][]): { spread: number; imbalance: number } {
  const ratingOf = new Map<string, number>();
  const lobbyRatings = lobbies.map((l) => {
    const rs = l.players.map((p) => playerRating(mode, p.state));
    l.players.forEach((p, i) => ratingOf.set(p.id, rs[i]));
    return rs.length ? rs.reduce((a, b) => a + b, 0) / rs.length : DEFAULT_RATING;
  });
  const sums = teams.map((t) => t.reduce((s, id) => s + (ratingOf.get(id) ?? DEFAULT_RATING), 0));
  return { spread: Math.max(...lobbyRatings) - Math.min(...lobbyRatings), imbalance: sums.length > 1 ? Math.max(...sums) - Math.min(...sums) : 0 };
}

/**
 * `events`: the lobby and match events of the period, in store order (any project, config and mode:
 * the ones of `key` and `mode.name` are picked). `mode`: the mode to simulate.
 */
export function replayQueue(
  key: { projectId: string; config: string }, modeName: string, mode: MatchmakingMode, events: Recorded[], range: { from: string; to: string }, tickMs = 250,
): ReplayResult {
  const fromMs = Date.parse(range.from);
  const toMs = Date.parse(range.to);
  const mine = (q: { projectId: string; config: string; mode: string }) => q.projectId === key.projectId && q.config === key.config && q.mode === modeName;
  // The searches of the period, and what ended each (as recorded).
  const timeline: { atMs: number; apply: (q: MatchQueue, live: Map<string, Ticket>) => void }[] = [];
  const searching = new Set<string>();
  const actualWaits: number[] = [];
  let searches = 0;
  const lastTicket = new Map<string, Ticket>();
  const proposals = new Map<string, { lobbies: Ticket[]; teams: string[][] }>();
  const actualSpreads: number[] = [];
  const actualImbalances: number[] = [];

  for (const e of events) {
    const atMs = Date.parse(e.data.at);
    if (atMs < fromMs || atMs > toMs) continue;
    const ev = e as unknown as LobbyEvent | MatchEvent;
    if (ev.type === 'MatchmakingStarted' || ev.type === 'MatchmakingTicketChanged') {
      const q = ev.data.queue;
      if (!mine(q)) continue;
      const t: Ticket = { lobbyId: ev.data.lobbyId, ticket: q.ticket, region: q.region, queuedAt: q.queuedAt, players: q.players };
      if (ev.type === 'MatchmakingStarted') searches++;
      searching.add(t.lobbyId);
      lastTicket.set(t.lobbyId, t);
      timeline.push({ atMs, apply: (mq, live) => { live.set(t.lobbyId, t); mq.update(t); } });
    } else if (ev.type === 'LobbyMatchFound') {
      const t = lastTicket.get(ev.data.lobbyId);
      if (!t || !searching.has(t.lobbyId)) continue;
      searching.delete(t.lobbyId);
      actualWaits.push((atMs - Date.parse(t.queuedAt)) / 1000);
    } else if (ev.type === 'MatchmakingEnded' || ev.type === 'LobbyDeleted') {
      const id = ev.data.lobbyId;
      if (!lastTicket.has(id)) continue;
      searching.delete(id);
      // A search that ended without a match (cancel, leave, deletion) ends in the simulation too; the
      // mode's own timeout decides there (not the recorded one, which the proposed mode may change).
      if (ev.type === 'MatchmakingEnded' && (ev.data.reason === 'timeout' || ev.data.reason === 'failed')) continue;
      timeline.push({ atMs, apply: (mq, live) => { live.delete(id); mq.remove(id); } });
    } else if (ev.type === 'MatchProposed') {
      if (ev.data.projectId !== key.projectId || ev.data.config !== key.config || ev.data.mode !== modeName) continue;
      proposals.set(ev.data.matchId, { lobbies: ev.data.lobbies.map((l) => lastTicket.get(l.lobbyId)).filter((t): t is Ticket => !!t), teams: ev.data.teams });
    } else if (ev.type === 'MatchFormed') {
      const p = proposals.get(ev.data.matchId);
      if (!p || p.lobbies.length === 0) continue;
      const f = matchFigures(mode, p.lobbies, p.teams);
      actualSpreads.push(f.spread);
      actualImbalances.push(f.imbalance);
    }
  }

  // The simulation.
  const mq = new MatchQueue(key, mode);
  const live = new Map<string, Ticket>();
  const simWaits: number[] = [];
  const simSpreads: number[] = [];
  const simImbalances: number[] = [];
  let next = 0;
  let n = 0;
  for (let now = fromMs; now <= toMs; now += tickMs) {
    while (next < timeline.length && timeline[next].atMs <= now) timeline[next++].apply(mq, live);
    // The mode's timeout ends a search (the simulated one, for a proposed timeout).
    for (const t of [...live.values()]) {
      if (now - Date.parse(t.queuedAt) >= mode.timeout * 1000) {
        live.delete(t.lobbyId);
        mq.remove(t.lobbyId);
      }
    }
    const iso = new Date(now).toISOString();
    for (const p of mq.step(iso, () => `sim-${n++}`)) {
      const lobbies = p.lobbies.map((l) => live.get(l.lobbyId)!);
      for (const l of lobbies) {
        simWaits.push((now - Date.parse(l.queuedAt)) / 1000);
        live.delete(l.lobbyId);
        mq.remove(l.lobbyId);
      }
      const f = matchFigures(mode, lobbies, p.teams);
      simSpreads.push(f.spread);
      simImbalances.push(f.imbalance);
    }
  }
  return { actual: figures(actualWaits, searches, actualSpreads, actualImbalances), simulated: figures(simWaits, searches, simSpreads, simImbalances) };
}
