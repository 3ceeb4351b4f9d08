// Skill: a lobby's rating and the window of ratings it accepts, which widens while it waits. Windows are
// mutual (decisions.md): two lobbies can share a match only when each one's window covers the other.
import { MatchRule } from './mode';

export const DEFAULT_RATING = 1000;

export type DifferenceRule = Extract<MatchRule, { type: 'difference' }>;

/** The mean of the players' `state[field]`; a player without a number there counts as 1000. */
export function lobbyRating(players: { state: Record<string, unknown> }[], field: string): number {
  if (players.length === 0) return DEFAULT_RATING;
  const sum = players.reduce((s, p) => {
    const v = p.state[field];
    return s + (typeof v === 'number' && Number.isFinite(v) ? v : DEFAULT_RATING);
  }, 0);
  return sum / players.length;
}

/** Expansions so far after `waitedMs` in queue (0 without expandEvery). */
export function expansions(rule: DifferenceRule, waitedMs: number): number {
  if (!rule.expandEvery || rule.expandEvery <= 0 || rule.expandBy <= 0 || waitedMs <= 0) return 0;
  return Math.floor(waitedMs / (rule.expandEvery * 1000));
}

/** The allowed difference now: maxDifference plus expandBy per expansion, the added amount capped by maxExpansion. */
export function allowedDifference(rule: DifferenceRule, waitedMs: number): number {
  const added = expansions(rule, waitedMs) * rule.expandBy;
  return rule.maxDifference + (rule.maxExpansion === null ? added : Math.min(added, rule.maxExpansion));
}

/** When the window grows next (ms after queueing), or null when it is at its widest. */
export function nextExpansionAt(rule: DifferenceRule, waitedMs: number): number | null {
  if (!rule.expandEvery || rule.expandEvery <= 0 || rule.expandBy <= 0) return null;
  if (rule.maxExpansion !== null && expansions(rule, waitedMs) * rule.expandBy >= rule.maxExpansion) return null;
  return (expansions(rule, waitedMs) + 1) * rule.expandEvery * 1000;
}

export interface Rated { rating: number; waitedMs: number }

/** Each one's current window covers the other's rating. */
export function mutuallyInWindow(rule: DifferenceRule, a: Rated, b: Rated): boolean {
  const gap = Math.abs(a.rating - b.rating);
  return gap <= allowedDifference(rule, a.waitedMs) && gap <= allowedDifference(rule, b.waitedMs);
}
