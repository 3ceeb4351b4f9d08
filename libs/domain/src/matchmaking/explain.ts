// Why a queued lobby has not matched yet (GET …/me/matchmaking): matching must never be silent. Pure: the
// mode, the lobby's ticket, the other tickets of its queue and the clock in; the lobby's current window,
// when it grows next, how many lobbies it could match now, the nearest rating gap, and machine-readable
// `blockedBy` reasons with the figures behind them out. It applies the engine's own tests (rating.ts,
// region.ts), so what it says agrees with what the matcher does.
import { MatchmakingMode } from './mode';
import { allowedDifference, DEFAULT_RATING, DifferenceRule, lobbyRating, mutuallyInWindow, nextExpansionAt } from './rating';
import { equalRulesHold, lobbyRegions } from './region';
import type { Ticket } from './engine';

export type BlockedBy =
  | { code: 'party_too_large'; partySize: number; maxPartySize: number }
  | { code: 'mode_not_supported'; reason: string }
  | { code: 'no_candidate_in_window'; rating: number; maxDifference: number; nearestGap: number | null; nextExpansionAt: string | null }
  | { code: 'not_enough_players'; playersAvailable: number; playersNeeded: number }
  | { code: 'no_common_region'; regions: string[] }
  | { code: 'latency_above_max'; maxMs: number }
  | { code: 'equal_rule'; field: string };

export interface Explanation {
  /** The difference rule's current window, null when the mode has none. */
  currentRule: { field: string; maxDifference: number; nextExpansionAt: string | null } | null;
  rating: number;
  /** Queued lobbies this one could share a match with now. */
  candidates: number;
  /** The smallest rating gap to any other lobby of its queue (null when it is alone). */
  nearestGap: number | null;
  blockedBy: BlockedBy[];
}

export function explainTicket(mode: MatchmakingMode, mine: Ticket, others: Ticket[], now: string): Explanation {
  const nowMs = Date.parse(now);
  const rule = mode.rules.find((r): r is DifferenceRule => r.type === 'difference') ?? null;
  const latency = mode.rules.find((r) => r.type === 'latency');
  const waited = (t: Ticket) => Math.max(0, nowMs - Date.parse(t.queuedAt));
  const rated = (t: Ticket) => ({ rating: rule ? lobbyRating(t.players, rule.field) : DEFAULT_RATING, waitedMs: waited(t) });
  const me = rated(mine);
  const grows = rule ? nextExpansionAt(rule, me.waitedMs) : null;
  const currentRule = rule
    ? { field: rule.field, maxDifference: allowedDifference(rule, me.waitedMs), nextExpansionAt: grows === null ? null : new Date(Date.parse(mine.queuedAt) + grows).toISOString() }
    : null;
  const blockedBy: BlockedBy[] = [];
  const size = mine.players.length;
  if (mode.roles) blockedBy.push({ code: 'mode_not_supported', reason: 'role modes are not matched yet' });
  if (size > mode.maxPartySize || size > mode.playersPerTeam) blockedBy.push({ code: 'party_too_large', partySize: size, maxPartySize: Math.min(mode.maxPartySize, mode.playersPerTeam) });

  const myRegions = lobbyRegions(mode, mine);
  if (latency && latency.type === 'latency' && myRegions.length === 0) blockedBy.push({ code: 'latency_above_max', maxMs: latency.maxMs });
  // The lobbies it shares a queue with: its region, or (latency rule) a region all can play in.
  const sameQueue = others.filter((t) => t.lobbyId !== mine.lobbyId && (latency ? lobbyRegions(mode, t).some((r) => myRegions.includes(r)) : t.region === mine.region));
  if (latency && others.length > 0 && sameQueue.length === 0 && myRegions.length > 0) blockedBy.push({ code: 'no_common_region', regions: myRegions });

  let nearestGap: number | null = null;
  let candidates = 0;
  let available = size;
  let equalBlocked = false;
  for (const t of sameQueue) {
    const them = rated(t);
    const gap = Math.abs(them.rating - me.rating);
    if (nearestGap === null || gap < nearestGap) nearestGap = gap;
    if (t.players.length > mode.maxPartySize || t.players.length > mode.playersPerTeam) continue;
    if (rule && !mutuallyInWindow(rule, me, them)) continue;
    if (!equalRulesHold(mode, [...mine.players, ...t.players])) {
      equalBlocked = true;
      continue;
    }
    candidates++;
    available += t.players.length;
  }
  const needed = mode.teams * (rule && currentRule && currentRule.maxDifference > rule.maxDifference ? mode.minPlayersPerTeam : mode.playersPerTeam);
  if (rule && candidates === 0 && sameQueue.length > 0) {
    blockedBy.push({ code: 'no_candidate_in_window', rating: me.rating, maxDifference: currentRule!.maxDifference, nearestGap, nextExpansionAt: currentRule!.nextExpansionAt });
  }
  if (equalBlocked && candidates === 0) {
    const equal = mode.rules.find((r) => r.type === 'equal');
    if (equal && equal.type === 'equal') blockedBy.push({ code: 'equal_rule', field: equal.field });
  }
  if (available < needed) blockedBy.push({ code: 'not_enough_players', playersAvailable: available, playersNeeded: needed });
  return { currentRule, rating: me.rating, candidates, nearestGap, blockedBy };
}
