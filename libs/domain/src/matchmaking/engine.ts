// The matching step over one queue (a project's config and mode): which waiting lobbies make a match now.
// Pure: the tickets, the clock and the match ids come in, proposals come out (the Match decider and the
// reservations on each lobby's stream decide whether they stand). Oldest ticket first: it anchors a match
// and takes the nearest ratings that every chosen lobby's window covers (windows are mutual), that share a
// region with the others and keep the `equal` rules, until the match is full, or, once the anchor's window
// has grown at least once, as full as minPlayersPerTeam allows. Teams are balanced by rating sums.
// Role modes (roles.ts) take the same steps, with role slots in place of team sizes: every team exactly
// `count` players of each role, full matches only; a lobby whose players lack a role of the mode, or ask
// for more of one than a team holds, never matches in it.
// Candidates come from a rating-sorted index, walked outward from the anchor over unused lobbies only
// (skip links), at most MAX_LOOKED_AT per anchor, so a step costs about n log n, not n². How the walk is
// made cheap (precomputed entries, the party fit, jumping over party sizes that cannot join) is in
// step.ts; MatchQueue (queue.ts) keeps the sorted index between steps so a tick does not sort the queue.
import { MatchmakingMode } from './mode';
import type { MatchProposal } from './match';
import { Entry, eligible, entryOf, formInGroup, MatchIdOf, prepare, QueueKey, Scratch, sortByAge, sortByRating, Ticket } from './step';

export type { MatchIdOf, QueueKey, Ticket } from './step';

/**
 * Matches formed from the queue now. `matchId` names a match from its lobbies (deterministic, so a retried
 * step proposes the same match). Proposals come region by region, in
 * the order each region first appears among the tickets.
 */
export function formMatches(key: QueueKey, mode: MatchmakingMode, tickets: Ticket[], now: string, matchId: MatchIdOf): MatchProposal[] {
  const p = prepare(mode);
  const nowMs = Date.parse(now);
  // Without a latency rule only lobbies of one region match: each region is its own queue.
  const groups = new Map<string, Entry[]>();
  for (let i = 0; i < tickets.length; i++) {
    const t = tickets[i];
    if (!eligible(p, t.players.length)) continue;
    const e = entryOf(p, t, i);
    if (!e.roleOk) continue;
    const g = p.latency ? '' : t.region;
    const group = groups.get(g);
    if (group) group.push(e);
    else groups.set(g, [e]);
  }
  const proposals: MatchProposal[] = [];
  const scratch = new Scratch();
  for (const [region, group] of groups) {
    const ages = sortByAge(group);
    const ratings = sortByRating(group);
    formInGroup(p, scratch, ages, ratings, p.latency ? null : region, nowMs, key, matchId, proposals, null);
  }
  return proposals;
}
