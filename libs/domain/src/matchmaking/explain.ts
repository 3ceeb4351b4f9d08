// Why a queued lobby has not matched yet (GET …/me/matchmaking): matching must never be silent. Pure: the
// mode, the lobby's ticket, the other tickets of its queue and the clock in; the lobby's current window,
// when it grows next, how many lobbies it could match now, the nearest rating gap, and machine-readable
// `blockedBy` reasons with the figures behind them out. It applies the engine's own tests (rating.ts,
// region.ts), so what it says agrees with what the matcher does.
//
// Two ways in, one answer: explainTicket scans every ticket it is given; MatchQueue.explain (queue.ts)
// shows ExplainScan only the lobbies that can change the answer (the nearest ratings and those within the
// window), read from its rating-sorted index. Both go through ExplainScan, so they agree to the bit.
import { MatchmakingMode } from './mode';
import { allowedDifference, DEFAULT_RATING, DifferenceRule, lobbyRating, mutuallyInWindow, nextExpansionAt, Rated } from './rating';
import { equalRulesHold, lobbyRegions } from './region';
import { RoleTable, roleTable, roleProblems, roleVector } from './roles';
import type { Ticket } from './engine';

export type BlockedBy =
  | { code: 'party_too_large'; partySize: number; maxPartySize: number }
  /** Role modes: a player without a role the mode has (state[field] of no role slot names it). */
  | { code: 'role_missing'; playerId: string }
  /** Role modes: the lobby's players ask for more of a role than a team holds (a lobby is one party, on one team). */
  | { code: 'role_full'; role: string; count: number }
  | { code: 'no_candidate_in_window'; rating: number; maxDifference: number; nearestGap: number | null; nextExpansionAt: string | null }
  /** With `role` (role modes): players of that role among it and its candidates, and what a match needs of it. */
  | { code: 'not_enough_players'; playersAvailable: number; playersNeeded: number; role?: string }
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

/**
 * One explanation being worked out: what the lobby itself says (its rating, window, regions), then each
 * other lobby of its queue it is shown (`consider`, each at most once), then `result`. A lobby not shown
 * must not be able to change the answer: only the nearest gap and the lobbies within the window count.
 * The tallies are public so a caller that knows them in bulk (MatchQueue without a difference rule) may
 * set them directly.
 */
export class ExplainScan {
  readonly nowMs: number;
  readonly rule: DifferenceRule | null;
  readonly latency: Extract<MatchmakingMode['rules'][number], { type: 'latency' }> | null;
  /** The lobby's rating and time in queue. */
  readonly me: Rated;
  /** Its current allowed difference (+∞ without a difference rule). */
  readonly window: number;
  readonly currentRule: Explanation['currentRule'];
  /** The regions it can play in (lobbyRegions). */
  readonly regions: string[];
  /** Role modes: the roles (null otherwise). */
  readonly roles: RoleTable | null;
  /** Role modes: its own players per role (those with a role of the mode). */
  readonly myRoles: Int32Array | null;
  /** Role modes: players per role of it and its candidates (the role figures of `available`). */
  availableRoles: Float64Array | null;
  private readonly vec: Int32Array | null;
  nearestGap: number | null = null;
  candidates = 0;
  available: number;
  equalBlocked = false;

  constructor(readonly mode: MatchmakingMode, readonly mine: Ticket, now: string) {
    this.nowMs = Date.parse(now);
    const rule = mode.rules.find((r): r is DifferenceRule => r.type === 'difference') ?? null;
    const latency = mode.rules.find((r) => r.type === 'latency');
    this.rule = rule;
    this.latency = latency && latency.type === 'latency' ? latency : null;
    this.me = { rating: rule ? lobbyRating(mine.players, rule.field) : DEFAULT_RATING, waitedMs: Math.max(0, this.nowMs - Date.parse(mine.queuedAt)) };
    this.window = rule ? allowedDifference(rule, this.me.waitedMs) : Number.POSITIVE_INFINITY;
    const grows = rule ? nextExpansionAt(rule, this.me.waitedMs) : null;
    this.currentRule = rule
      ? { field: rule.field, maxDifference: this.window, nextExpansionAt: grows === null ? null : new Date(Date.parse(mine.queuedAt) + grows).toISOString() }
      : null;
    this.regions = lobbyRegions(mode, mine);
    this.roles = roleTable(mode);
    this.vec = this.roles ? new Int32Array(this.roles.names.length) : null;
    this.myRoles = this.roles ? new Int32Array(this.roles.names.length) : null;
    if (this.roles) roleVector(this.roles, mine.players, this.myRoles!);
    this.availableRoles = this.myRoles ? Float64Array.from(this.myRoles) : null;
    this.available = mine.players.length;
  }

  /**
   * Another lobby of its queue (its region; with a latency rule, one sharing a region), `queuedMs` Date.parse
   * of its queuedAt; role modes: `roles` its players per role and `roleOk` whether they fit a team (roleVector's
   * answers: read from its players when not given).
   */
  consider(t: Ticket, rating: number, queuedMs: number, roles?: Int32Array | null, roleOk?: boolean): void {
    const { mode, rule } = this;
    const them = { rating, waitedMs: Math.max(0, this.nowMs - queuedMs) };
    const gap = Math.abs(them.rating - this.me.rating);
    if (this.nearestGap === null || gap < this.nearestGap) this.nearestGap = gap;
    const size = t.players.length;
    if (size > mode.maxPartySize || size > mode.playersPerTeam) return;
    let vec = roles ?? null;
    if (this.roles) {
      if (!vec) {
        vec = this.vec!;
        roleOk = roleVector(this.roles, t.players, vec);
      }
      if (!roleOk) return;
    }
    if (rule && !mutuallyInWindow(rule, this.me, them)) return;
    if (!equalRulesHold(mode, [...this.mine.players, ...t.players])) {
      this.equalBlocked = true;
      return;
    }
    this.candidates++;
    this.available += size;
    if (vec) for (let r = 0; r < vec.length; r++) this.availableRoles![r] += vec[r];
  }

  /**
   * The answer. `shared`: some other lobby shares its queue (region, or a region with a latency rule);
   * `othersExist`: the queue holds any ticket at all (its own included).
   */
  result(shared: boolean, othersExist: boolean): Explanation {
    const { mode, rule, currentRule, latency, mine } = this;
    const blockedBy: BlockedBy[] = [];
    const size = mine.players.length;
    if (size > mode.maxPartySize || size > mode.playersPerTeam) blockedBy.push({ code: 'party_too_large', partySize: size, maxPartySize: Math.min(mode.maxPartySize, mode.playersPerTeam) });
    if (this.roles) {
      const { missing, full } = roleProblems(this.roles, mine.players);
      for (const playerId of missing) blockedBy.push({ code: 'role_missing', playerId });
      for (const f of full) blockedBy.push({ code: 'role_full', role: f.role, count: f.count });
    }
    if (latency && this.regions.length === 0) blockedBy.push({ code: 'latency_above_max', maxMs: latency.maxMs });
    if (latency && othersExist && !shared && this.regions.length > 0) blockedBy.push({ code: 'no_common_region', regions: this.regions });
    // Role modes form full matches only (roles.ts).
    const needed = mode.teams * (!this.roles && rule && currentRule && currentRule.maxDifference > rule.maxDifference ? mode.minPlayersPerTeam : mode.playersPerTeam);
    if (rule && this.candidates === 0 && shared) {
      blockedBy.push({ code: 'no_candidate_in_window', rating: this.me.rating, maxDifference: currentRule!.maxDifference, nearestGap: this.nearestGap, nextExpansionAt: currentRule!.nextExpansionAt });
    }
    if (this.equalBlocked && this.candidates === 0) {
      const equal = mode.rules.find((r) => r.type === 'equal');
      if (equal && equal.type === 'equal') blockedBy.push({ code: 'equal_rule', field: equal.field });
    }
    if (this.available < needed) blockedBy.push({ code: 'not_enough_players', playersAvailable: this.available, playersNeeded: needed });
    if (this.roles) {
      const { names, counts } = this.roles;
      for (let r = 0; r < names.length; r++) {
        const want = mode.teams * counts[r];
        if (this.availableRoles![r] < want) blockedBy.push({ code: 'not_enough_players', role: names[r], playersAvailable: this.availableRoles![r], playersNeeded: want });
      }
    }
    return { currentRule, rating: this.me.rating, candidates: this.candidates, nearestGap: this.nearestGap, blockedBy };
  }
}

/** Explains `mine` against `others` (the tickets of its queue; its own may be among them), looking at every one. */
export function explainTicket(mode: MatchmakingMode, mine: Ticket, others: Ticket[], now: string): Explanation {
  const scan = new ExplainScan(mode, mine, now);
  const { rule, latency, regions } = scan;
  // The lobbies it shares a queue with: its region, or (latency rule) a region all can play in.
  let shared = false;
  for (const t of others) {
    if (t.lobbyId === mine.lobbyId) continue;
    if (latency ? !lobbyRegions(mode, t).some((r) => regions.includes(r)) : t.region !== mine.region) continue;
    shared = true;
    scan.consider(t, rule ? lobbyRating(t.players, rule.field) : DEFAULT_RATING, Date.parse(t.queuedAt));
  }
  return scan.result(shared, others.length > 0);
}
