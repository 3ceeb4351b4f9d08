// Specs only (not built): the matching step and balanceTeams as first written, one straightforward pass
// per step (entries rebuilt, the queue sorted, a balanceTeams call per candidate party). The engine and
// MatchQueue must give exactly what these give; the specs compare them on seeded random queues.
// (One change: without a difference rule it read past both ends of the index once nothing was left.)
import { MatchmakingMode } from './mode';
import { allowedDifference, DEFAULT_RATING, DifferenceRule, expansions, lobbyRating, mutuallyInWindow } from './rating';
import { chooseRegion, equalRulesHold, lobbyRegions } from './region';
import type { Party, TeamPlan } from './teams';
import type { QueueKey, Ticket } from './engine';
import type { MatchLobby, MatchProposal } from './match';

const weight = (p: Party) => p.rating * p.size;
const spread = (sums: number[]) => Math.max(...sums) - Math.min(...sums);

/** Null when the parties do not fit (a party larger than a team, or more players than the match holds). */
export function referenceBalanceTeams(parties: Party[], teams: number, playersPerTeam: number): TeamPlan | null {
  const members: Party[][] = Array.from({ length: teams }, () => []);
  const sizes = new Array<number>(teams).fill(0);
  const sums = new Array<number>(teams).fill(0);
  const order = [...parties].sort((a, b) => b.size - a.size || weight(b) - weight(a) || a.id.localeCompare(b.id));
  for (const p of order) {
    let best = -1;
    for (let t = 0; t < teams; t++) {
      if (sizes[t] + p.size > playersPerTeam) continue;
      if (best < 0 || sums[t] < sums[best] || (sums[t] === sums[best] && sizes[t] < sizes[best])) best = t;
    }
    if (best < 0) return null;
    members[best].push(p);
    sizes[best] += p.size;
    sums[best] += weight(p);
  }
  // Swaps of equal-sized parties (team sizes unchanged) while one narrows the spread.
  for (let improved = true, rounds = 0; improved && rounds < 50; rounds++) {
    improved = false;
    const before = spread(sums);
    for (let a = 0; a < teams && !improved; a++) {
      for (let b = a + 1; b < teams && !improved; b++) {
        for (const x of members[a]) {
          const y = members[b].find((c) => c.size === x.size && Math.abs((sums[a] - weight(x) + weight(c)) - (sums[b] - weight(c) + weight(x))) < Math.abs(sums[a] - sums[b]));
          if (!y) continue;
          const next = [...sums];
          next[a] += weight(y) - weight(x);
          next[b] += weight(x) - weight(y);
          if (spread(next) >= before) continue;
          members[a] = members[a].map((p) => (p === x ? y : p));
          members[b] = members[b].map((p) => (p === y ? x : p));
          sums.splice(0, sums.length, ...next);
          improved = true;
          break;
        }
      }
    }
  }
  return { teams: members.map((m) => m.map((p) => p.id)), sums };
}

interface Entry { t: Ticket; rating: number; waitedMs: number; regions: string[]; size: number }

/** Code-unit order (ISO times, ids): localeCompare is many times slower and not needed here. */
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const hasLatencyRule = (mode: MatchmakingMode) => mode.rules.some((r) => r.type === 'latency');
const party = (x: Entry) => ({ id: x.t.lobbyId, size: x.size, rating: x.rating });

const differenceRule = (mode: MatchmakingMode) => mode.rules.find((r): r is DifferenceRule => r.type === 'difference') ?? null;

function entries(mode: MatchmakingMode, tickets: Ticket[], nowMs: number): Entry[] {
  const rule = differenceRule(mode);
  return tickets.map((t) => ({
    t,
    rating: rule ? lobbyRating(t.players, rule.field) : DEFAULT_RATING,
    waitedMs: Math.max(0, nowMs - Date.parse(t.queuedAt)),
    regions: lobbyRegions(mode, t),
    size: t.players.length,
  }));
}

/**
 * Unused entries of a rating-sorted array, walked from either side: skip links with path compression, so
 * a used entry is stepped over once. Indices are shifted by one in the links (0 and n+1 are sentinels).
 */
class Unused {
  private readonly next: Int32Array;
  private readonly prev: Int32Array;
  constructor(private readonly n: number) {
    this.next = Int32Array.from({ length: n + 2 }, (_, i) => i);
    this.prev = Int32Array.from({ length: n + 2 }, (_, i) => i);
  }
  take(i: number): void {
    this.next[i + 1] = i + 2;
    this.prev[i + 1] = i;
  }
  has(i: number): boolean {
    return this.next[i + 1] === i + 1;
  }
  /** The first unused index ≥ i, or n. */
  right(i: number): number {
    return Math.min(Unused.root(this.next, i + 1) - 1, this.n);
  }
  /** The last unused index ≤ i, or -1. */
  left(i: number): number {
    return Unused.root(this.prev, i + 1) - 1;
  }
  /** Where the links from `from` end (an unused entry or a sentinel), every link on the way pointed there. */
  private static root(links: Int32Array, from: number): number {
    let j = from;
    while (links[j] !== j) j = links[j];
    for (let k = from; links[k] !== k;) {
      const after = links[k];
      links[k] = j;
      k = after;
    }
    return j;
  }
}

/** Most lobbies a match step looks at for one anchor: a step stays bounded however the queue looks. */
const MAX_LOOKED_AT = 2_000;

/**
 * Matches formed from the queue now. `matchId` names a match from its lobbies (deterministic, so a retried
 * step proposes the same match). Role modes are not matched here yet.
 */
export function referenceFormMatches(
  key: QueueKey, mode: MatchmakingMode, tickets: Ticket[], now: string, matchId: (lobbies: MatchLobby[]) => string,
): MatchProposal[] {
  if (mode.roles) return [];
  const nowMs = Date.parse(now);
  const all = entries(mode, tickets, nowMs).filter((e) => e.size > 0 && e.size <= mode.maxPartySize && e.size <= mode.playersPerTeam);
  // Without a latency rule only lobbies of one region match: each region is its own queue.
  const latency = hasLatencyRule(mode);
  const groups = new Map<string, Entry[]>();
  for (const e of all) {
    const g = latency ? '' : e.t.region;
    const group = groups.get(g);
    if (group) group.push(e);
    else groups.set(g, [e]);
  }
  const proposals: MatchProposal[] = [];
  for (const group of groups.values()) proposals.push(...formInGroup(key, mode, group, matchId));
  return proposals;
}

function formInGroup(key: QueueKey, mode: MatchmakingMode, all: Entry[], matchId: (lobbies: MatchLobby[]) => string): MatchProposal[] {
  const rule = differenceRule(mode);
  const byAge = [...all].sort((a, b) => cmp(a.t.queuedAt, b.t.queuedAt) || cmp(a.t.lobbyId, b.t.lobbyId));
  const byRating = [...all].sort((a, b) => a.rating - b.rating || cmp(a.t.lobbyId, b.t.lobbyId));
  const index = new Map(byRating.map((e, i) => [e, i]));
  const unused = new Unused(byRating.length);
  const full = mode.teams * mode.playersPerTeam;
  const latency = hasLatencyRule(mode);
  const equal = mode.rules.some((r) => r.type === 'equal');
  const proposals: MatchProposal[] = [];

  for (const anchor of byAge) {
    const at = index.get(anchor)!;
    if (!unused.has(at)) continue;
    const grown = rule ? expansions(rule, anchor.waitedMs) > 0 : true;
    const least = grown ? mode.teams * mode.minPlayersPerTeam : full;
    const reach = rule ? allowedDifference(rule, anchor.waitedMs) : Number.POSITIVE_INFINITY;
    const chosen = [anchor];
    let size = anchor.size;
    let parties = anchor.size > 1;
    // Outward from the anchor's rating, nearest first, over unused lobbies only.
    let lo = unused.left(at - 1);
    let hi = unused.right(at + 1);
    for (let looked = 0; size < full && looked < MAX_LOOKED_AT; looked++) {
      const down = lo >= 0 ? anchor.rating - byRating[lo].rating : Number.POSITIVE_INFINITY;
      const up = hi < byRating.length ? byRating[hi].rating - anchor.rating : Number.POSITIVE_INFINITY;
      if (Math.min(down, up) > reach) break;
      if (lo < 0 && hi >= byRating.length) break; // the one change: it read past the ends without a difference rule
      let c: Entry;
      if (down <= up) {
        c = byRating[lo];
        lo = unused.left(lo - 1);
      } else {
        c = byRating[hi];
        hi = unused.right(hi + 1);
      }
      if (size + c.size > full) continue;
      if (rule && !chosen.every((x) => mutuallyInWindow(rule, x, c))) continue;
      // Within one region's queue (no latency rule) every lobby shares the region.
      if (latency && (!c.regions.some((r) => anchor.regions.includes(r)) || !chooseRegion(mode, [...chosen, c].map((x) => x.t)))) continue;
      if (equal && !equalRulesHold(mode, [...chosen, c].flatMap((x) => x.t.players))) continue;
      // Solo players always fit while there is room; parties may not (a team has room, but not for all of them).
      if ((parties || c.size > 1) && !referenceBalanceTeams([...chosen, c].map(party), mode.teams, mode.playersPerTeam)) continue;
      chosen.push(c);
      size += c.size;
      if (c.size > 1) parties = true;
    }
    if (size < least) continue;
    const plan = referenceBalanceTeams(chosen.map(party), mode.teams, mode.playersPerTeam);
    const region = chooseRegion(mode, chosen.map((x) => x.t));
    if (!plan || !region) continue;
    const byId = new Map(chosen.map((x) => [x.t.lobbyId, x]));
    const teamSizes = plan.teams.map((ids) => ids.reduce((n, id) => n + byId.get(id)!.size, 0));
    if (teamSizes.some((n) => n < (grown ? mode.minPlayersPerTeam : mode.playersPerTeam))) continue;
    const lobbies: MatchLobby[] = chosen.map((x) => ({ lobbyId: x.t.lobbyId, ticket: x.t.ticket, players: x.t.players.map((p) => p.id), rating: x.rating, queuedAt: x.t.queuedAt }));
    for (const x of chosen) unused.take(index.get(x)!);
    proposals.push({
      matchId: matchId(lobbies), projectId: key.projectId, config: key.config, mode: mode.name, region, lobbies,
      teams: plan.teams.map((ids) => ids.flatMap((id) => byId.get(id)!.t.players.map((p) => p.id))),
      requireConfirmation: mode.requireConfirmation, confirmationTimeoutMs: mode.confirmationTimeout * 1000,
    });
  }
  return proposals;
}
