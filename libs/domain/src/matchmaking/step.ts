// The matching step's core, shared by formMatches (one queue given whole) and MatchQueue (a queue kept
// between steps). Not exported from the package: its entries are the engine's own working form.
//
// What a step decides is in engine.ts; this is how it does so fast, with the very same outcome:
// - every ticket's rating, queue time, regions and `equal` values are read once (MatchQueue: once per
//   ticket revision, not per step), its window once per step, into typed arrays by rating order;
// - the mutual-window, region and `equal` checks of a candidate against the lobbies chosen so far are
//   comparisons against what was precomputed (no arrays built per candidate);
// - the party fit of a candidate is balanceTeams' first pass only (partiesFit), on scratch arrays;
// - a candidate whose party size cannot join the lobbies chosen so far (no room, or no split of the sizes
//   into the teams at all) is not looked at one by one: the walk jumps to the nearest lobby of a size
//   that can, counting the lobbies it passes against the same MAX_LOOKED_AT as before (a Fenwick tree of
//   the unused lobbies, and one skip list per party size). An anchor among lobbies that can never fill
//   a match (e.g. only parties of two left for 5v5) costs a few lookups, not 2,000 candidates.
import { MatchmakingMode } from './mode';
import { allowedDifference, DEFAULT_RATING, DifferenceRule, expansions, lobbyRating } from './rating';
import { chooseRegion, lobbyRegions } from './region';
import { balanceTeams, partiesFit } from './teams';
import type { MatchLobby, MatchProposal } from './match';

export interface Ticket {
  lobbyId: string;
  /** The lobby stream's revision of this ticket (a reservation holds only at it). */
  ticket: number;
  region: string;
  queuedAt: string;
  players: { id: string; state: Record<string, unknown> }[];
}

export interface QueueKey { projectId: string; config: string }

export type MatchIdOf = (lobbies: MatchLobby[]) => string;

/** Most lobbies a match step looks at for one anchor: a step stays bounded however the queue looks. */
export const MAX_LOOKED_AT = 2_000;

/** What a step reads from the mode, once. */
export interface Prepared {
  mode: MatchmakingMode;
  rule: DifferenceRule | null;
  latency: boolean;
  equalFields: string[];
  full: number;
}

export function prepare(mode: MatchmakingMode): Prepared {
  return {
    mode,
    rule: mode.rules.find((r): r is DifferenceRule => r.type === 'difference') ?? null,
    latency: mode.rules.some((r) => r.type === 'latency'),
    equalFields: mode.rules.flatMap((r) => (r.type === 'equal' ? [r.field] : [])),
    full: mode.teams * mode.playersPerTeam,
  };
}

/** A queued ticket as the step reads it. */
export interface Entry {
  t: Ticket;
  rating: number;
  /** Date.parse(t.queuedAt). */
  queuedMs: number;
  /** t.queuedAt is in the canonical ISO form (toISOString's): its string order is its time order. */
  canon: boolean;
  size: number;
  /** The regions it can play in (latency modes only). */
  regions: string[] | null;
  /** The players' values of the `equal` fields when they all agree (null when they do not; '' without equal rules). */
  eq: string | null;
  /** Queue order (the order formMatches would be given the tickets in). */
  seq: number;
  /** Scratch: the index in this step's rating order. */
  ri: number;
  /** MatchQueue's bookkeeping. */
  state: number;
}

/** Code-unit order (ISO times, ids): localeCompare is many times slower and not needed here. */
export const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const DIGIT = (c: number) => c >= 48 && c <= 57;
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** YYYY-MM-DDTHH:MM:SS.sssZ naming a real instant (Date.parse rolls Feb 30 and 24:00 over; those are not canonical). */
function canonical(s: string, ms: number): boolean {
  if (s.length !== 24 || !Number.isFinite(ms)) return false;
  for (let i = 0; i < 24; i++) {
    const c = s.charCodeAt(i);
    const ok = i === 4 || i === 7 ? c === 45 : i === 10 ? c === 84 : i === 13 || i === 16 ? c === 58 : i === 19 ? c === 46 : i === 23 ? c === 90 : DIGIT(c);
    if (!ok) return false;
  }
  const num = (from: number, to: number) => Number(s.slice(from, to));
  const year = num(0, 4);
  const month = num(5, 7);
  const day = num(8, 10);
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = month === 2 && leap ? 29 : DAYS[month - 1];
  return month >= 1 && month <= 12 && day >= 1 && day <= days && num(11, 13) < 24;
}

function equalKey(fields: string[], players: Ticket['players']): string | null {
  if (fields.length === 0) return '';
  let key = '';
  for (let f = 0; f < fields.length; f++) {
    let value: string | undefined;
    for (let i = 0; i < players.length; i++) {
      const v = JSON.stringify(players[i].state[fields[f]] ?? null);
      if (i === 0) value = v;
      else if (v !== value) return null;
    }
    // JSON text never holds a raw NUL: the joined key is one-to-one.
    key += f === 0 ? `${value}` : `\u0000${value}`;
  }
  return key;
}

/** Parties the mode never matches: empty, above maxPartySize or larger than a team. */
export const eligible = (p: Prepared, size: number) => size > 0 && size <= p.mode.maxPartySize && size <= p.mode.playersPerTeam;

export function entryOf(p: Prepared, t: Ticket, seq: number): Entry {
  const queuedMs = Date.parse(t.queuedAt);
  return {
    t,
    rating: p.rule ? lobbyRating(t.players, p.rule.field) : DEFAULT_RATING,
    queuedMs,
    canon: canonical(t.queuedAt, queuedMs),
    size: t.players.length,
    regions: p.latency ? lobbyRegions(p.mode, t) : null,
    eq: equalKey(p.equalFields, t.players),
    seq,
    ri: 0,
    state: 0,
  };
}

/** Oldest first (queuedAt in code-unit order, then lobby id), as the step anchors. */
export const byAge = (a: Entry, b: Entry) =>
  (a.canon && b.canon ? a.queuedMs - b.queuedMs : cmp(a.t.queuedAt, b.t.queuedAt)) || cmp(a.t.lobbyId, b.t.lobbyId);
/** Rating, then lobby id: the order candidates are walked in. */
export const byRating = (a: Entry, b: Entry) => a.rating - b.rating || cmp(a.t.lobbyId, b.t.lobbyId);

/** Typed arrays reused from step to step (grown when a queue grows). */
export class Scratch {
  cap = -1;
  rat = new Float64Array(0);
  win = new Float64Array(0);
  sz = new Int32Array(0);
  next = new Int32Array(0);
  prev = new Int32Array(0);
  fen = new Int32Array(0);
  cpos = new Int32Array(0);
  crank = new Int32Array(0);
  clinks = new Int32Array(0);
  clinksPrev = new Int32Array(0);

  ensure(n: number): void {
    if (n <= this.cap) return;
    const cap = Math.max(n, Math.ceil(this.cap * 1.5), 16);
    this.cap = cap;
    this.rat = new Float64Array(cap);
    this.win = new Float64Array(cap);
    this.sz = new Int32Array(cap);
    this.next = new Int32Array(cap + 2);
    this.prev = new Int32Array(cap + 2);
    this.fen = new Int32Array(cap + 1);
    this.cpos = new Int32Array(cap);
    this.crank = new Int32Array(cap);
    // One block of links per party size: at most playersPerTeam blocks, each with two sentinels.
    this.clinks = new Int32Array(0);
    this.clinksPrev = new Int32Array(0);
  }
}

/** Where the links from `from` end (an unused entry or a sentinel), every link on the way pointed there. */
function root(links: Int32Array, from: number): number {
  let j = from;
  while (links[j] !== j) j = links[j];
  for (let k = from; links[k] !== k;) {
    const after = links[k];
    links[k] = j;
    k = after;
  }
  return j;
}

/**
 * A lobby of party size `cs` cannot join the chosen ones, whatever its rating and window: no room, or (two
 * teams) no split of the party sizes into the teams at all, so balanceTeams could not place them either.
 * Cached per size in `rejected` (-1 not known, 1 cannot, 0 may) until the chosen ones change.
 */
function cannotJoin(
  rejected: Int8Array, cs: number, sz: Int32Array, chosen: Int32Array, cn: number, size: number, full: number,
  parties: boolean, ppt: number, splitMask: number,
): boolean {
  let r = rejected[cs];
  if (r < 0) {
    r = size + cs > full ? 1 : 0;
    if (r === 0 && splitMask !== 0 && (parties || cs > 1)) {
      // Some subset of the parties must hold between total − ppt and ppt players (bit x: x players).
      let mask = 1;
      for (let c = 0; c < cn; c++) mask = (mask | (mask << sz[chosen[c]])) & splitMask;
      mask = (mask | (mask << cs)) & splitMask;
      if (mask >>> Math.max(0, size + cs - ppt) === 0) r = 1;
    }
    rejected[cs] = r;
  }
  return r === 1;
}

/**
 * The matches one group (a region's queue, or the whole queue with a latency rule) forms now, appended to
 * `out`; the lobbies they take are appended to `taken`. `ages` and `ratings` hold the same entries, oldest
 * first and by rating. `region` is the group's region (null with a latency rule: chosen per match).
 */
export function formInGroup(
  p: Prepared, s: Scratch, ages: Entry[], ratings: Entry[], region: string | null, nowMs: number,
  key: QueueKey, matchId: MatchIdOf, out: MatchProposal[], taken: Entry[] | null,
): void {
  const n = ratings.length;
  if (n === 0) return;
  const { mode, rule, full, latency } = p;
  const equal = p.equalFields.length > 0;
  const teams = mode.teams;
  const ppt = mode.playersPerTeam;
  s.ensure(n);
  const { rat, win, sz, next, prev, fen } = s;

  // Per step: each entry's place, rating, size and window now; which party sizes there are.
  const classOf = new Int32Array(ppt + 1).fill(-1);
  const classSize: number[] = [];
  const classLen: number[] = [];
  for (let i = 0; i < n; i++) {
    const e = ratings[i];
    e.ri = i;
    rat[i] = e.rating;
    sz[i] = e.size;
    win[i] = rule ? allowedDifference(rule, Math.max(0, nowMs - e.queuedMs)) : Number.POSITIVE_INFINITY;
    let k = classOf[e.size];
    if (k < 0) {
      k = classOf[e.size] = classSize.length;
      classSize.push(e.size);
      classLen.push(0);
    }
    classLen[k]++;
  }
  for (let i = 0; i < n + 2; i++) {
    next[i] = i;
    prev[i] = i;
  }
  const multi = classSize.length > 1;
  const K = classSize.length;
  const coff = new Int32Array(K + 1);
  const loff = new Int32Array(K);
  if (multi) {
    // Fenwick tree of the unused (all unused to begin with).
    for (let i = 1; i <= n; i++) fen[i] = 1;
    for (let i = 1; i <= n; i++) {
      const j = i + (i & -i);
      if (j <= n) fen[j] += fen[i];
    }
    // Per party size: its entries in rating order, and skip links over them.
    for (let k = 0; k < K; k++) coff[k + 1] = coff[k] + classLen[k];
    const fill = Array.from(coff.subarray(0, K));
    for (let i = 0; i < n; i++) {
      const k = classOf[sz[i]];
      s.crank[i] = fill[k] - coff[k];
      s.cpos[fill[k]++] = i;
    }
    if (s.clinks.length < n + 2 * K) {
      s.clinks = new Int32Array(s.cap + 2 * (ppt + 1));
      s.clinksPrev = new Int32Array(s.clinks.length);
    }
    const { clinks, clinksPrev: cprev } = s;
    for (let k = 0, at = 0; k < K; k++) {
      loff[k] = at;
      for (let r = 0; r < classLen[k] + 2; r++) {
        clinks[at + r] = at + r;
        cprev[at + r] = at + r;
      }
      at += classLen[k] + 2;
    }
  }
  const { cpos, crank, clinks, clinksPrev: cprev } = s;

  const right = (i: number) => Math.min(root(next, i + 1) - 1, n);
  const left = (i: number) => root(prev, i + 1) - 1;
  const take = (i: number) => {
    next[i + 1] = i + 2;
    prev[i + 1] = i;
    if (!multi) return;
    for (let j = i + 1; j <= n; j += j & -j) fen[j]--;
    const k = classOf[sz[i]];
    const r = crank[i];
    clinks[loff[k] + r + 1] = loff[k] + r + 2;
    cprev[loff[k] + r + 1] = loff[k] + r;
  };
  const prefix = (i: number) => {
    let c = 0;
    for (let j = i + 1; j > 0; j -= j & -j) c += fen[j];
    return c;
  };
  /** Unused entries in [a, b]. */
  const count = (a: number, b: number) => (b < a ? 0 : prefix(b) - prefix(a - 1));
  /** The first unused entry of class k at index ≥ i, or n. */
  const nextOf = (k: number, i: number) => {
    let l = coff[k];
    let h = coff[k + 1];
    while (l < h) {
      const m = (l + h) >>> 1;
      if (cpos[m] < i) l = m + 1;
      else h = m;
    }
    const r = Math.min(root(clinks, loff[k] + (l - coff[k]) + 1) - loff[k] - 1, classLen[k]);
    return r < classLen[k] ? cpos[coff[k] + r] : n;
  };
  /** The last unused entry of class k at index ≤ i, or -1. */
  const prevOf = (k: number, i: number) => {
    let l = coff[k];
    let h = coff[k + 1];
    while (l < h) {
      const m = (l + h) >>> 1;
      if (cpos[m] <= i) l = m + 1;
      else h = m;
    }
    const r = root(cprev, loff[k] + (l - 1 - coff[k]) + 1) - loff[k] - 1;
    return r >= 0 ? cpos[coff[k] + r] : -1;
  };

  const chosen = new Int32Array(full + 1);
  const fitSizes = new Int32Array(full + 1);
  const fitWeights = new Float64Array(full + 1);
  const teamSizes = new Int32Array(teams);
  const teamSums = new Float64Array(teams);
  // Per party size, for the lobbies chosen so far: -1 not known yet, 1 it cannot join, 0 it may.
  const rejected = new Int8Array(ppt + 1);
  const splitMask = teams === 2 && ppt <= 29 ? (1 << (ppt + 1)) - 1 : 0;

  for (const anchor of ages) {
    const at = anchor.ri;
    if (next[at + 1] !== at + 1) continue;
    const waited = Math.max(0, nowMs - anchor.queuedMs);
    const grown = rule ? expansions(rule, waited) > 0 : true;
    const least = grown ? teams * mode.minPlayersPerTeam : full;
    const reach = rule ? win[at] : Number.POSITIVE_INFINITY;
    const ar = rat[at];
    chosen[0] = at;
    let cn = 1;
    let size = anchor.size;
    let parties = size > 1;
    let common = latency ? anchor.regions! : null;
    const eq = anchor.eq;
    if (multi) for (let k = 0; k < K; k++) rejected[classSize[k]] = -1;
    // Outward from the anchor's rating, nearest first, over unused lobbies only.
    let lo = left(at - 1);
    let hi = right(at + 1);
    let looked = 0;
    while (size < full && looked < MAX_LOOKED_AT) {
      const down = lo >= 0 ? ar - rat[lo] : Number.POSITIVE_INFINITY;
      const up = hi < n ? rat[hi] - ar : Number.POSITIVE_INFINITY;
      if (Math.min(down, up) > reach) break;
      if (lo < 0 && hi >= n) break; // nothing left (without a difference rule the reach is infinite)
      const isDown = down <= up;
      const ci = isDown ? lo : hi;
      const cs = sz[ci];
      if (!multi ? size + cs > full : cannotJoin(rejected, cs, sz, chosen, cn, size, full, parties, ppt, splitMask)) {
        // Every lobby of this size is refused until the chosen ones change: only another size can come next.
        if (!multi) break;
        let dT = -1;
        let uT = n;
        for (let k = 0; k < K; k++) {
          if (cannotJoin(rejected, classSize[k], sz, chosen, cn, size, full, parties, ppt, splitMask)) continue;
          if (lo >= 0) dT = Math.max(dT, prevOf(k, lo));
          if (hi < n) uT = Math.min(uT, nextOf(k, hi));
        }
        if (dT < 0 && uT >= n) break;
        const ddT = dT >= 0 ? ar - rat[dT] : Number.POSITIVE_INFINITY;
        const duT = uT < n ? rat[uT] - ar : Number.POSITIVE_INFINITY;
        // Every unused lobby walked before the target is passed over (and counted as looked at).
        if (ddT <= duT) {
          // Down first: the up side passes what is nearer than ddT.
          let l = hi;
          let h = uT;
          while (l < h) {
            const m = (l + h) >>> 1;
            if (rat[m] - ar < ddT) l = m + 1;
            else h = m;
          }
          looked += count(dT + 1, lo) + count(hi, l - 1);
          lo = dT;
          hi = right(l);
        } else {
          // Up first: the down side passes what is at most duT away.
          let l = dT + 1;
          let h = lo + 1;
          while (l < h) {
            const m = (l + h) >>> 1;
            if (ar - rat[m] <= duT) h = m;
            else l = m + 1;
          }
          looked += count(hi, uT - 1) + count(l, lo);
          hi = uT;
          lo = left(l - 1);
        }
        continue;
      }
      if (isDown) lo = left(lo - 1);
      else hi = right(hi + 1);
      looked++;
      if (rule) {
        const rc = rat[ci];
        const wc = win[ci];
        let ok = true;
        for (let c = 0; c < cn && ok; c++) {
          const x = chosen[c];
          const gap = Math.abs(rat[x] - rc);
          ok = gap <= win[x] && gap <= wc;
        }
        if (!ok) continue;
      }
      const ce = ratings[ci];
      // Within one region's queue (no latency rule) every lobby shares the region.
      if (common && !common.some((r) => ce.regions!.includes(r))) continue;
      if (equal && (eq === null || ce.eq !== eq)) continue;
      // Solo players always fit while there is room; parties may not (a team has room, but not for all of them).
      if (parties || cs > 1) {
        for (let c = 0; c < cn; c++) {
          fitSizes[c] = sz[chosen[c]];
          fitWeights[c] = rat[chosen[c]] * sz[chosen[c]];
        }
        fitSizes[cn] = cs;
        fitWeights[cn] = rat[ci] * cs;
        if (!partiesFit(fitSizes, fitWeights, cn + 1, teams, ppt, teamSizes, teamSums)) continue;
      }
      chosen[cn++] = ci;
      size += cs;
      if (cs > 1) parties = true;
      if (common) common = common.filter((r) => ce.regions!.includes(r));
      if (multi) for (let k = 0; k < K; k++) rejected[classSize[k]] = -1;
    }
    if (size < least) continue;

    const picked: Entry[] = [];
    for (let c = 0; c < cn; c++) picked.push(ratings[chosen[c]]);
    const plan = balanceTeams(picked.map((x) => ({ id: x.t.lobbyId, size: x.size, rating: x.rating })), teams, ppt);
    const where = latency ? chooseRegion(mode, picked.map((x) => x.t)) : region;
    if (!plan || !where) continue;
    // By lobby id, the last of that id (as a Map built from the picked ones would hold).
    const byId = (id: string) => {
      for (let c = picked.length - 1; ; c--) if (picked[c].t.lobbyId === id) return picked[c];
    };
    const min = grown ? mode.minPlayersPerTeam : ppt;
    let short = false;
    for (const ids of plan.teams) {
      let players = 0;
      for (const id of ids) players += byId(id).size;
      if (players < min) short = true;
    }
    if (short) continue;
    const lobbies: MatchLobby[] = picked.map((x) => ({ lobbyId: x.t.lobbyId, ticket: x.t.ticket, players: x.t.players.map((pl) => pl.id), rating: x.rating, queuedAt: x.t.queuedAt }));
    for (let c = 0; c < cn; c++) take(chosen[c]);
    if (taken) for (const x of picked) taken.push(x);
    out.push({
      matchId: matchId(lobbies), projectId: key.projectId, config: key.config, mode: mode.name, region: where, lobbies,
      teams: plan.teams.map((ids) => ids.flatMap((id) => byId(id).t.players.map((pl) => pl.id))),
      requireConfirmation: mode.requireConfirmation, confirmationTimeoutMs: mode.confirmationTimeout * 1000,
    });
  }
}
