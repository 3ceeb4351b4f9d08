// The matching step's core, shared by formMatches (one queue given whole) and MatchQueue (a queue kept
// between steps). Not exported from the package: its entries are the engine's own working form.
//
// What a step decides is in engine.ts; this is how it does so fast, with the very same outcome:
// - every ticket's rating, queue time, regions and `equal` values are read once (MatchQueue: once per
//   ticket revision, not per step), its window once per step, into typed arrays by rating order; its
//   players' ids too, which a proposal's lobby then holds (no walk back to the players per proposal);
// - the sorts by rating and by age place integer keys by counting and compare ids by a numeric prefix
//   read in input order (sortedByKey): the same order as a comparison sort, without its string compares;
// - the mutual-window, region and `equal` checks of a candidate against the lobbies chosen so far are
//   comparisons against what was precomputed (no arrays built per candidate);
// - the party fit of a candidate is balanceTeams' first pass only (partiesFit), on scratch arrays;
// - a candidate whose party size cannot join the lobbies chosen so far (no room, or no split of the sizes
//   into the teams at all) is not looked at one by one: the walk jumps to the nearest lobby of a size
//   that can, counting the lobbies it passes against the same MAX_LOOKED_AT as before (a Fenwick tree of
//   the unused lobbies, and one skip list per party size). An anchor among lobbies that can never fill
//   a match (e.g. only parties of two left for 5v5) costs a few lookups, not 2,000 candidates.
// Role modes (roles.ts) walk the same way in formRoleGroup, with role make-ups in place of party sizes: the
// walk goes only to lobbies of a make-up that fits the role slots still free (and whose party a placement
// on the teams takes), and only full matches form.
import { MatchmakingMode } from './mode';
import { allowedDifference, DEFAULT_RATING, DifferenceRule, expansions } from './rating';
import { chooseRegion, lobbyRegions } from './region';
import { partiesFit, planTeams, TeamWork } from './teams';
import { RoleTable, roleTable, roleVector, RoleWork } from './roles';
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
  /** Role modes: the roles (roles.ts); null otherwise. */
  roles: RoleTable | null;
}

export function prepare(mode: MatchmakingMode): Prepared {
  return {
    mode,
    rule: mode.rules.find((r): r is DifferenceRule => r.type === 'difference') ?? null,
    latency: mode.rules.some((r) => r.type === 'latency'),
    equalFields: mode.rules.flatMap((r) => (r.type === 'equal' ? [r.field] : [])),
    full: mode.teams * mode.playersPerTeam,
    roles: roleTable(mode),
  };
}

/** A queued ticket as the step reads it. */
export interface Entry {
  t: Ticket;
  /** t.lobbyId. */
  id: string;
  /**
   * The players' ids, read once per ticket (while the tickets are read in order): a proposal's lobby holds
   * this very array (nothing changes it), and a step does not go back to the players for them.
   */
  pids: string | string[];
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
  /** Role modes: its players per role (null otherwise). */
  roles: Int32Array | null;
  /** Role modes: every player has a role of the mode, none asked for more often than a team holds it (true otherwise). */
  roleOk: boolean;
  /** Queue order (the order formMatches would be given the tickets in). */
  seq: number;
  /** Scratch: the index in this step's rating order. */
  ri: number;
  /** MatchQueue's bookkeeping. */
  state: number;
}

/** Code-unit order (ISO times, ids): localeCompare is many times slower and not needed here. */
export const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
/** Where each character of YYYY-MM-DDTHH:MM:SS.sssZ must be a digit (0) or this character. */
const SHAPE = Array.from('0000-00-00T00:00:00.000Z', (c) => (c === '0' ? 0 : c.charCodeAt(0)));

/**
 * The time of a canonical ISO string (toISOString's form, naming a real instant: Date.parse would roll
 * Feb 30 and 24:00 over, those are not canonical), or NaN for any other string. Its string order is its
 * time order, and it is what Date.parse gives (read here without Date.parse, which costs more than the
 * rest of a ticket).
 */
function canonicalTime(s: string): number {
  if (s.length !== 24) return Number.NaN;
  for (let i = 0; i < 24; i++) {
    const c = s.charCodeAt(i);
    if (SHAPE[i] === 0 ? c < 48 || c > 57 : c !== SHAPE[i]) return Number.NaN;
  }
  const two = (i: number) => (s.charCodeAt(i) - 48) * 10 + s.charCodeAt(i + 1) - 48;
  const year = two(0) * 100 + two(2);
  const month = two(5);
  const day = two(8);
  const hour = two(11);
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  if (month < 1 || month > 12 || day < 1 || day > (month === 2 && leap ? 29 : DAYS[month - 1]) || hour > 23) return Number.NaN;
  // Days from 1970-01-01 of the proleptic Gregorian date (H. Hinnant's days_from_civil).
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  const days = era * 146_097 + doe - 719_468;
  return days * 86_400_000 + hour * 3_600_000 + two(14) * 60_000 + two(17) * 1000 + two(20) * 10 + s.charCodeAt(22) - 48;
}

/** lobbyRating, in one loop (the same sum, in the same order). */
function ratingOf(players: Ticket['players'], field: string): number {
  if (players.length === 0) return DEFAULT_RATING;
  let sum = 0;
  for (let i = 0; i < players.length; i++) {
    const v = players[i].state[field];
    sum += typeof v === 'number' && Number.isFinite(v) ? v : DEFAULT_RATING;
  }
  return sum / players.length;
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

/** A lobby the mode can ever match: eligible, and (role modes) its players' roles fit a team. */
export const takes = (p: Prepared, e: Entry) => e.roleOk && eligible(p, e.size);

export function entryOf(p: Prepared, t: Ticket, seq: number): Entry {
  const canon = canonicalTime(t.queuedAt);
  let roles: Int32Array | null = null;
  let roleOk = true;
  if (p.roles) {
    roles = new Int32Array(p.roles.names.length);
    roleOk = roleVector(p.roles, t.players, roles);
  }
  return {
    t,
    id: t.lobbyId,
    pids: playerIds(t.players),
    rating: p.rule ? ratingOf(t.players, p.rule.field) : DEFAULT_RATING,
    queuedMs: Number.isNaN(canon) ? Date.parse(t.queuedAt) : canon,
    canon: !Number.isNaN(canon),
    size: t.players.length,
    regions: p.latency ? lobbyRegions(p.mode, t) : null,
    eq: equalKey(p.equalFields, t.players),
    roles,
    roleOk,
    seq,
    ri: 0,
    state: 0,
  };
}

/** Oldest first (queuedAt in code-unit order, then lobby id), as the step anchors. */
export const byAge = (a: Entry, b: Entry) =>
  (a.canon && b.canon ? a.queuedMs - b.queuedMs : cmp(a.t.queuedAt, b.t.queuedAt)) || cmp(a.id, b.id);
/** Rating, then lobby id: the order candidates are walked in. */
export const byRating = (a: Entry, b: Entry) => a.rating - b.rating || cmp(a.id, b.id);
/**
 * A number whose order agrees with the code-unit order of `s` (a ≤ b when s ≤ t; equal numbers say
 * nothing): its first 7 code units as base-128 digits (49 bits, exact in a double). A unit of 127 or more
 * ends it (127, then zeros), so what follows such a unit never decides; a shorter string reads as zeros.
 */
function idPrefix(s: string): number {
  let k = 0;
  for (let i = 0; i < 7; i++) {
    const c = i < s.length ? s.charCodeAt(i) : 0;
    if (c >= 127) {
      k = k * 128 + 127;
      for (i++; i < 7; i++) k *= 128;
      return k;
    }
    k = k * 128 + c;
  }
  return k;
}

/**
 * Sorts out[from, to) (entries of one key) by id, stably: by their idPrefix (in pk, moved with them) first,
 * the ids compared only where those are equal. Ids are unique in practice, so most pairs are two numbers.
 */
function sortRunById(out: Entry[], pk: Float64Array, from: number, to: number): void {
  const len = to - from;
  if (len <= 32) {
    for (let i = from + 1; i < to; i++) {
      const v = out[i];
      const vk = pk[i];
      let j = i - 1;
      for (; j >= from && (pk[j] > vk || (pk[j] === vk && cmp(out[j].id, v.id) > 0)); j--) {
        out[j + 1] = out[j];
        pk[j + 1] = pk[j];
      }
      out[j + 1] = v;
      pk[j + 1] = vk;
    }
    return;
  }
  const run = out.slice(from, to);
  const keys = pk.slice(from, to);
  const order = Array.from({ length: len }, (_, i) => i);
  order.sort((a, b) => keys[a] - keys[b] || cmp(run[a].id, run[b].id));
  for (let i = 0; i < len; i++) {
    out[from + i] = run[order[i]];
    pk[from + i] = keys[order[i]];
  }
}

/** Largest key range sorted by counting (per entry): a count per key beats a comparison sort up to here. */
const COUNTING_SPAN = 4;

/**
 * A copy of `entries` in the order of a stable sort by `key` (a finite number), ties by lobby id: the
 * same order as Array.prototype.sort with (key difference || id order), without comparing most pairs.
 * Keys that are binary fractions of a small denominator (a party's mean of 2 or 4 ratings) are scaled to
 * integers first, exactly. Integer keys in a range of at most COUNTING_SPAN × n + 1,024 are placed by a
 * counting sort (by key, then input order); in a wider range that fits, each entry becomes one number
 * (key − min) × n + its index, and a typed-array sort orders them all; else the keys are ranked by a
 * typed-array sort first. Only runs of one key are then sorted by id (sortRunById).
 */
function sortedByKey(entries: Entry[], key: (e: Entry) => number): Entry[] {
  const n = entries.length;
  if (n < 2) return entries.slice();
  const keys = new Float64Array(n);
  // Each id's prefix, read in input order (where the entries and their ids lie near each other in memory:
  // read in sorted order, nearly every read is a cache miss), then moved with its entry.
  const ids = new Float64Array(n);
  for (let i = 0; i < n; i++) ids[i] = idPrefix(entries[i].id);
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let integers = true;
  for (let i = 0; i < n; i++) {
    const k = key(entries[i]);
    keys[i] = k;
    if (k < min) min = k;
    if (k > max) max = k;
    if (integers && !Number.isInteger(k)) integers = false;
  }
  if (!integers && Number.isFinite(min) && Number.isFinite(max) && Math.max(-min, max) < 2 ** 40) {
    // A power of two scales exactly, and keeps the order.
    for (const scale of [2, 4, 8, 16]) {
      let all = true;
      for (let i = 0; i < n && all; i++) all = Number.isInteger(keys[i] * scale);
      if (!all) continue;
      for (let i = 0; i < n; i++) keys[i] *= scale;
      min *= scale;
      max *= scale;
      integers = true;
      break;
    }
  }
  const out = new Array<Entry>(n);
  const pk = new Float64Array(n);
  // Run boundaries of `out` (filled below): same[i] = 1 when out[i] has out[i-1]'s key.
  const same = new Uint8Array(n);
  const span = max - min + 1;
  if (integers && span <= COUNTING_SPAN * n + 1024) {
    const start = new Int32Array(span + 1);
    for (let i = 0; i < n; i++) start[((keys[i] - min) | 0) + 1]++;
    for (let k = 0; k < span; k++) start[k + 1] += start[k];
    for (let k = 0; k < span; k++) for (let j = start[k] + 1; j < start[k + 1]; j++) same[j] = 1;
    for (let i = 0; i < n; i++) {
      const at = start[(keys[i] - min) | 0]++;
      out[at] = entries[i];
      pk[at] = ids[i];
    }
  } else if (integers && span * n < Number.MAX_SAFE_INTEGER) {
    const packed = new Float64Array(n);
    for (let i = 0; i < n; i++) packed[i] = (keys[i] - min) * n + i;
    packed.sort();
    let prev = Number.NaN;
    for (let k = 0; k < n; k++) {
      const i = packed[k] % n;
      out[k] = entries[i];
      pk[k] = ids[i];
      const v = keys[i];
      if (v === prev) same[k] = 1;
      prev = v;
    }
  } else {
    const distinct = keys.slice().sort();
    let m = 0;
    for (let i = 0; i < n; i++) if (m === 0 || distinct[i] !== distinct[m - 1]) distinct[m++] = distinct[i]; // -0 and 0: one key
    const rank = new Int32Array(n);
    const start = new Int32Array(m + 1);
    for (let i = 0; i < n; i++) {
      let l = 0;
      let h = m - 1;
      while (l < h) {
        const mid = (l + h) >>> 1;
        if (distinct[mid] < keys[i]) l = mid + 1;
        else h = mid;
      }
      rank[i] = l;
      start[l + 1]++;
    }
    for (let r = 0; r < m; r++) start[r + 1] += start[r];
    const at = start.slice(0, m);
    for (let i = 0; i < n; i++) {
      const k = at[rank[i]]++;
      out[k] = entries[i];
      pk[k] = ids[i];
    }
    for (let r = 0; r < m; r++) for (let k = start[r] + 1; k < start[r + 1]; k++) same[k] = 1;
  }
  for (let from = 0; from < n;) {
    let to = from + 1;
    while (to < n && same[to] === 1) to++;
    if (to - from > 1) sortRunById(out, pk, from, to);
    from = to;
  }
  return out;
}

/** A copy of `entries` sorted byAge. */
export function sortByAge(entries: Entry[]): Entry[] {
  for (const e of entries) if (!e.canon) return [...entries].sort(byAge);
  return sortedByKey(entries, (e) => e.queuedMs);
}

/** A copy of `entries` sorted byRating. */
export function sortByRating(entries: Entry[]): Entry[] {
  return sortedByKey(entries, (e) => e.rating);
}

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

/** The last of parties 0..n-1 with the id of party i. */
function lastOf(ids: string[], n: number, i: number): number {
  for (let c = n - 1; ; c--) if (ids[c] === ids[i]) return c;
}

/**
 * The players' ids as an entry keeps them (Entry.pids): a solo lobby's id itself, else an array of exactly
 * their number (an empty array grown by push holds 17 slots).
 */
function playerIds(players: Ticket['players']): string | string[] {
  const n = players.length;
  if (n === 1) return players[0].id;
  if (n === 2) return [players[0].id, players[1].id];
  const out = new Array<string>(n);
  for (let i = 0; i < n; i++) out[i] = players[i].id;
  return out;
}

/** A proposal's lobby's players: the entry's own array (a new one for a solo lobby). */
const lobbyPlayers = (e: Entry): string[] => (typeof e.pids === 'string' ? [e.pids] : e.pids);

/** Copies ids into `into` from `at`; where the next ones go. */
function copyIds(ids: string | string[], into: string[], at: number): number {
  if (typeof ids === 'string') into[at++] = ids;
  else for (let i = 0; i < ids.length; i++) into[at++] = ids[i];
  return at;
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
  if (p.roles) {
    formRoleGroup(p, s, ages, ratings, region, nowMs, key, matchId, out, taken);
    return;
  }
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
  const partyIds = new Array<string>(full + 1).fill('');
  const partySizes = new Int32Array(full + 1);
  const partyRatings = new Float64Array(full + 1);
  const work = new TeamWork();
  const fitSizes = new Int32Array(full + 1);
  const fitWeights = new Float64Array(full + 1);
  const teamSizes = new Int32Array(teams);
  const teamSums = new Float64Array(teams);
  // Per party size, for the lobbies chosen so far: -1 not known yet, 1 it cannot join, 0 it may.
  const rejected = new Int8Array(ppt + 1);
  // Per match: the chosen party of each team member (lastOf), and the players per team.
  const partyOf = new Int32Array((full + 1) * teams);
  const teamCount = new Int32Array(teams);
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

    for (let c = 0; c < cn; c++) {
      const x = ratings[chosen[c]];
      partyIds[c] = x.id;
      partySizes[c] = x.size;
      partyRatings[c] = x.rating;
    }
    if (!planTeams(cn, partySizes, partyRatings, partyIds, null, teams, ppt, work)) continue;
    const where = latency ? chooseRegion(mode, Array.from(chosen.subarray(0, cn), (i) => ratings[i].t)) : region;
    if (!where) continue;
    // A team's parties by lobby id: the last chosen of that id (as a Map of the chosen by id would give).
    const min = grown ? mode.minPlayersPerTeam : ppt;
    let short = false;
    for (let t = 0; t < teams; t++) {
      let players = 0;
      for (let j = 0; j < work.count[t]; j++) {
        const c = lastOf(partyIds, cn, work.members[t * cn + j]);
        partyOf[t * cn + j] = c;
        players += partySizes[c];
      }
      teamCount[t] = players;
      if (players < min) short = true;
    }
    if (short) continue;
    const lobbies: MatchLobby[] = new Array(cn);
    for (let c = 0; c < cn; c++) {
      const x = ratings[chosen[c]];
      lobbies[c] = { lobbyId: x.id, ticket: x.t.ticket, players: lobbyPlayers(x), rating: x.rating, queuedAt: x.t.queuedAt };
    }
    const teamPlayers: string[][] = new Array(teams);
    for (let t = 0; t < teams; t++) {
      const list = new Array<string>(teamCount[t]);
      let at = 0;
      for (let j = 0; j < work.count[t]; j++) at = copyIds(ratings[chosen[partyOf[t * cn + j]]].pids, list, at);
      teamPlayers[t] = list;
    }
    for (let c = 0; c < cn; c++) {
      take(chosen[c]);
      if (taken) taken.push(ratings[chosen[c]]);
    }
    out.push({
      matchId: matchId(lobbies), projectId: key.projectId, config: key.config, mode: mode.name, region: where, lobbies,
      teams: teamPlayers,
      requireConfirmation: mode.requireConfirmation, confirmationTimeoutMs: mode.confirmationTimeout * 1000,
    });
  }
}

/**
 * formInGroup for a role mode (roles.ts): the same anchors, walk, windows, regions and `equal` rules, but a
 * candidate must fit the role slots still free (every role's total at most teams × its count, and its
 * party on one team with the others placed: RoleWork.placeParties), and only full matches form (every
 * team exactly `count` players of each role). The entries are role-eligible (takes) already.
 */
function formRoleGroup(
  p: Prepared, s: Scratch, ages: Entry[], ratings: Entry[], region: string | null, nowMs: number,
  key: QueueKey, matchId: MatchIdOf, out: MatchProposal[], taken: Entry[] | null,
): void {
  const n = ratings.length;
  if (n === 0) return;
  const { mode, rule, full, latency } = p;
  const table = p.roles!;
  const R = table.names.length;
  const equal = p.equalFields.length > 0;
  const teams = mode.teams;
  s.ensure(n);
  const { rat, win } = s;
  // Unused players of each role in the group: once one falls below what a match needs, no anchor can match.
  const avail = new Float64Array(R);
  const want = new Int32Array(R);
  for (let r = 0; r < R; r++) want[r] = teams * table.counts[r];
  for (let i = 0; i < n; i++) {
    const e = ratings[i];
    e.ri = i;
    rat[i] = e.rating;
    win[i] = rule ? allowedDifference(rule, Math.max(0, nowMs - e.queuedMs)) : Number.POSITIVE_INFINITY;
    for (let r = 0; r < R; r++) avail[r] += e.roles![r];
  }
  // Role classes: the lobbies of one role make-up (players per role), as the party-size classes of
  // formInGroup. Per class: its entries in rating order, and skip links over the unused ones; the walk goes
  // to the nearest unused lobby of a class that can join the chosen ones (its roles within the slots still
  // free, and its party placeable with theirs), so the lobbies of the others are passed over, not looked at.
  const classOf = new Int32Array(n);
  const classVec: Int32Array[] = [];
  const classSize: number[] = [];
  const classLen: number[] = [];
  {
    const keys = new Map<string, number>();
    for (let i = 0; i < n; i++) {
      const v = ratings[i].roles!;
      const key = R === 1 ? String(v[0]) : v.join(',');
      let k = keys.get(key);
      if (k === undefined) {
        k = classVec.length;
        keys.set(key, k);
        classVec.push(v);
        classSize.push(ratings[i].size);
        classLen.push(0);
      }
      classOf[i] = k;
      classLen[k]++;
    }
  }
  const K = classVec.length;
  const coff = new Int32Array(K + 1);
  for (let k = 0; k < K; k++) coff[k + 1] = coff[k] + classLen[k];
  const cpos = new Int32Array(n);
  const crank = new Int32Array(n);
  {
    const at0 = Array.from(coff.subarray(0, K));
    for (let i = 0; i < n; i++) {
      const k = classOf[i];
      crank[i] = at0[k] - coff[k];
      cpos[at0[k]++] = i;
    }
  }
  const links = n + 2 * K;
  const cnext = new Int32Array(links);
  const cprev = new Int32Array(links);
  for (let i = 0; i < links; i++) {
    cnext[i] = i;
    cprev[i] = i;
  }
  // Class k's entry of rank j is at link coff[k] + 2k + j + 1; coff[k] + 2k and coff[k] + 2k + len + 1 are sentinels.
  const loff = (k: number) => coff[k] + 2 * k;
  /** The first rank in class k whose entry is at index ≥ i. */
  const lower = (k: number, i: number) => {
    let l = coff[k];
    let h = coff[k + 1];
    while (l < h) {
      const m = (l + h) >>> 1;
      if (cpos[m] < i) l = m + 1;
      else h = m;
    }
    return l - coff[k];
  };
  /** The first unused entry of class k at index ≥ i, or n. */
  const nextOf = (k: number, i: number) => {
    const j = root(cnext, loff(k) + lower(k, i) + 1) - loff(k) - 1;
    return j < classLen[k] ? cpos[coff[k] + j] : n;
  };
  /** The last unused entry of class k at index ≤ i, or -1. */
  const prevOf = (k: number, i: number) => {
    const j = root(cprev, loff(k) + lower(k, i + 1)) - loff(k) - 1;
    return j >= 0 ? cpos[coff[k] + j] : -1;
  };
  const used = new Uint8Array(n);
  const take = (i: number) => {
    used[i] = 1;
    const k = classOf[i];
    const j = loff(k) + crank[i] + 1;
    cnext[j] = j + 1;
    cprev[j] = j - 1;
  };

  const need = new Int32Array(R);
  const chosen = new Int32Array(full + 1);
  const vecs = new Array<Int32Array>(full + 1);
  const sizes = new Int32Array(full + 1);
  const weights = new Float64Array(full + 1);
  const ids = new Array<string>(full + 1).fill('');
  const work = new RoleWork(table, teams);
  const teamCount = new Int32Array(teams);
  const fill = (c: number, i: number) => {
    const x = ratings[i];
    vecs[c] = x.roles!;
    sizes[c] = x.size;
    weights[c] = x.rating * x.size;
    ids[c] = x.id;
  };
  // The classes that can join the chosen ones (adm[0..na)), worked out again whenever those change: its
  // roles within the slots still free, and (parties) a placement of every party on the teams. A placement
  // found proves the fit whatever the ratings, so a lobby of an admitted class fits the role slots.
  const adm = new Int32Array(K);
  let na = 0;
  const admit = (cn: number, parties: boolean) => {
    na = 0;
    for (let k = 0; k < K; k++) {
      const v = classVec[k];
      let ok = true;
      for (let r = 0; r < R && ok; r++) ok = v[r] <= need[r];
      if (!ok) continue;
      if (parties || classSize[k] > 1) {
        vecs[cn] = v;
        sizes[cn] = classSize[k];
        weights[cn] = 0;
        ids[cn] = '';
        if (!work.placeParties(cn + 1, vecs, sizes, weights, ids)) continue;
      }
      adm[na++] = k;
    }
  };

  for (const anchor of ages) {
    let enough = true;
    for (let r = 0; r < R; r++) if (avail[r] < want[r]) enough = false;
    if (!enough) break;
    const at = anchor.ri;
    if (used[at] === 1) continue;
    const reach = rule ? win[at] : Number.POSITIVE_INFINITY;
    const ar = rat[at];
    chosen[0] = at;
    fill(0, at);
    let cn = 1;
    let size = anchor.size;
    let parties = size > 1;
    for (let r = 0; r < R; r++) need[r] = want[r] - anchor.roles![r];
    let common = latency ? anchor.regions! : null;
    const eq = anchor.eq;
    admit(cn, parties);
    // Outward from the anchor's rating, nearest first, over unused lobbies of admitted classes only (the
    // others are passed over, not looked at): lo and hi are where each side goes on from.
    let lo = at - 1;
    let hi = at + 1;
    let looked = 0;
    while (size < full && looked < MAX_LOOKED_AT) {
      let dn = -1;
      let un = n;
      for (let a = 0; a < na; a++) {
        const k = adm[a];
        if (lo >= 0) dn = Math.max(dn, prevOf(k, lo));
        if (hi < n) un = Math.min(un, nextOf(k, hi));
      }
      const down = dn >= 0 ? ar - rat[dn] : Number.POSITIVE_INFINITY;
      const up = un < n ? rat[un] - ar : Number.POSITIVE_INFINITY;
      if (Math.min(down, up) > reach) break;
      if (dn < 0 && un >= n) break;
      const ci = down <= up ? dn : un;
      if (down <= up) lo = dn - 1;
      else hi = un + 1;
      looked++;
      const ce = ratings[ci];
      const cv = ce.roles!;
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
      if (common && !common.some((r) => ce.regions!.includes(r))) continue;
      if (equal && (eq === null || ce.eq !== eq)) continue;
      const cs = ce.size;
      fill(cn, ci);
      chosen[cn++] = ci;
      size += cs;
      if (cs > 1) parties = true;
      for (let r = 0; r < R; r++) need[r] -= cv[r];
      if (common) common = common.filter((r) => ce.regions!.includes(r));
      if (size < full) admit(cn, parties);
    }
    if (size < full) continue;
    if (!work.planRoleTeams(cn, vecs, sizes, weights, ids)) continue;
    const where = latency ? chooseRegion(mode, Array.from(chosen.subarray(0, cn), (i) => ratings[i].t)) : region;
    if (!where) continue;
    const lobbies: MatchLobby[] = new Array(cn);
    for (let t = 0; t < teams; t++) teamCount[t] = 0;
    for (let c = 0; c < cn; c++) teamCount[work.team[c]] += ratings[chosen[c]].size;
    const teamPlayers: string[][] = new Array(teams);
    for (let t = 0; t < teams; t++) {
      teamPlayers[t] = new Array<string>(teamCount[t]);
      teamCount[t] = 0;
    }
    for (let c = 0; c < cn; c++) {
      const x = ratings[chosen[c]];
      lobbies[c] = { lobbyId: x.id, ticket: x.t.ticket, players: lobbyPlayers(x), rating: x.rating, queuedAt: x.t.queuedAt };
      const t = work.team[c];
      teamCount[t] = copyIds(x.pids, teamPlayers[t], teamCount[t]);
    }
    for (let c = 0; c < cn; c++) {
      const x = ratings[chosen[c]];
      take(x.ri);
      for (let r = 0; r < R; r++) avail[r] -= x.roles![r];
      if (taken) taken.push(x);
    }
    out.push({
      matchId: matchId(lobbies), projectId: key.projectId, config: key.config, mode: mode.name, region: where, lobbies,
      teams: teamPlayers,
      requireConfirmation: mode.requireConfirmation, confirmationTimeoutMs: mode.confirmationTimeout * 1000,
    });
  }
}
