// One queue (a project's config and mode) kept between matching steps, so a tick costs what changed plus
// one pass over the queue, not a sort of it: the tickets are read once per revision (rating, regions,
// queue time, `equal` values) and kept oldest-first and by rating; new and returned tickets are sorted
// among themselves and merged in at the next step. Pure like formMatches (no clock: `now` comes in).
//
// A step's proposals take their lobbies: a taken ticket stays in the queue but is left out of the next
// steps until the caller learns how its reservation went:
//   - `remove(lobbyId)` once the match holds it (reserved), or the search ends (cancel, timeout);
//   - `release(lobbyId)` when the match was not formed (another lobby refused its reservation, or the
//     match was aborted or dissolved and this lobby goes back to the queue with its first queue time);
//   - `update(ticket)` with a new revision of the ticket (a leave, kick or state change): the new revision
//     is queued again, taken or not (a reservation at the old revision cannot hold).
// step() gives exactly what formMatches gives for tickets() at that moment (the queued tickets that are
// not taken, in the order they were first added).
//
// A step that can only repeat the last one is skipped: when the last step formed nothing, no ticket was
// added, updated, released or removed since, and no queued lobby's window has changed (a step reads the
// clock only through each lobby's number of expansions: its window, and whether it has grown at all), it
// forms nothing again. So a large queue that cannot match (fixed windows, or all at their widest) costs
// a tick nothing until something changes; the step itself is the same.
//
// explain(lobbyId, now) answers as explainTicket over every ticket held (taken ones and parties the mode
// never matches included), from an index of its own (ExplainIndex below: the step's arrays leave out what
// is taken or pending), built at the first explain() and kept by add and remove from then on.
import { MatchmakingMode } from './mode';
import type { MatchProposal } from './match';
import { allowedDifference, DifferenceRule, expansions } from './rating';
import { ExplainScan, explainTicket, Explanation } from './explain';
import { byAge, byRating, cmp, Entry, entryOf, formInGroup, MatchIdOf, prepare, Prepared, QueueKey, Scratch, sortByAge, sortByRating, takes, Ticket } from './step';

const QUEUED = 0; // in its group's sorted arrays
const PENDING = 1; // to be merged in at the next step
const TAKEN = 2; // in a proposal, waiting for remove / release
const DEAD = 3; // replaced or removed (still in the arrays until the next step drops it)
const NEVER = 4; // a party the mode never matches (its size; role modes: its roles): held, never in a step

interface Group {
  region: string | null;
  ages: Entry[];
  ratings: Entry[];
  pending: Entry[];
}

function merge(kept: Entry[], added: Entry[], order: (a: Entry, b: Entry) => number): Entry[] {
  if (added.length === 0) return kept;
  const out = new Array<Entry>(kept.length + added.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < kept.length && j < added.length) out[k++] = order(added[j], kept[i]) < 0 ? added[j++] : kept[i++];
  while (i < kept.length) out[k++] = kept[i++];
  while (j < added.length) out[k++] = added[j++];
  return out;
}

/** Entries still queued, in place. */
/**
 * When the step's view of this lobby's window next changes: its first expansion (the window grows, and the
 * lobby may then match short of full teams), then each one until the window is at its widest. NaN (a queue
 * time that cannot be read): now, so nothing is skipped.
 */
function changesAt(rule: DifferenceRule, queuedMs: number, nowMs: number): number {
  if (Number.isNaN(queuedMs)) return nowMs;
  const every = rule.expandEvery! * 1000;
  const k = expansions(rule, Math.max(0, nowMs - queuedMs));
  if (k > 0 && rule.maxExpansion !== null && k * rule.expandBy >= rule.maxExpansion) return Number.POSITIVE_INFINITY;
  return queuedMs + (k + 1) * every;
}

function compact(entries: Entry[]): Entry[] {
  let k = 0;
  for (let i = 0; i < entries.length; i++) if (entries[i].state === QUEUED) entries[k++] = entries[i];
  entries.length = k;
  return entries;
}

/** Entries in one order (a comparator giving a total order on them), as blocks of at most 128. */
class Blocks {
  private static readonly B = 64;
  blocks: Entry[][] = [];
  size = 0;

  constructor(private readonly order: (a: Entry, b: Entry) => number) {}

  /** Entries already in order. */
  fill(sorted: Entry[]): void {
    this.blocks = [];
    for (let i = 0; i < sorted.length; i += Blocks.B) this.blocks.push(sorted.slice(i, i + Blocks.B));
    this.size = sorted.length;
  }

  /** The last block whose first entry is not after e (0 when e comes first; -1 when empty). */
  private blockOf(e: Entry): number {
    let l = 0;
    let h = this.blocks.length - 1;
    while (l < h) {
      const m = (l + h + 1) >>> 1;
      if (this.order(this.blocks[m][0], e) <= 0) l = m;
      else h = m - 1;
    }
    return h;
  }

  /** The first place in `block` not before e. */
  private lower(block: Entry[], e: Entry): number {
    let l = 0;
    let h = block.length;
    while (l < h) {
      const m = (l + h) >>> 1;
      if (this.order(block[m], e) < 0) l = m + 1;
      else h = m;
    }
    return l;
  }

  insert(e: Entry): void {
    this.size++;
    if (this.blocks.length === 0) {
      this.blocks.push([e]);
      return;
    }
    const b = this.blockOf(e);
    const block = this.blocks[b];
    block.splice(this.lower(block, e), 0, e);
    if (block.length > 2 * Blocks.B) this.blocks.splice(b + 1, 0, block.splice(Blocks.B));
  }

  /** Where e is (block, index), or null. */
  find(e: Entry): [number, number] | null {
    if (this.blocks.length === 0) return null;
    const b = this.blockOf(e);
    const i = this.lower(this.blocks[b], e);
    return this.blocks[b][i] === e ? [b, i] : null;
  }

  delete(e: Entry): boolean {
    const at = this.find(e);
    if (!at) return false;
    const block = this.blocks[at[0]];
    block.splice(at[1], 1);
    if (block.length === 0) this.blocks.splice(at[0], 1);
    this.size--;
    return true;
  }

  first(k: number): Entry[] {
    const out: Entry[] = [];
    for (const block of this.blocks) {
      for (const e of block) {
        if (out.length === k) return out;
        out.push(e);
      }
    }
    return out;
  }
}

/** Oldest first by Date.parse of queuedAt (unreadable times last), then lobby id: a total order. */
const byQueueTime = (a: Entry, b: Entry) => {
  const x = Number.isNaN(a.queuedMs) ? Number.POSITIVE_INFINITY : a.queuedMs;
  const y = Number.isNaN(b.queuedMs) ? Number.POSITIVE_INFINITY : b.queuedMs;
  return x < y ? -1 : x > y ? 1 : cmp(a.id, b.id);
};

/** Lobbies explain looks at together: a region's (with a latency rule: those that can play in that region). */
interface ExplainGroup {
  /** By rating, then lobby id. */
  members: Blocks;
  // Without a difference rule nor a latency rule (every member a candidate but for party size and the
  // `equal` rules), tallies of the members of a party size the mode takes ("ok"): explain reads them, not
  // the members. zero: of no players; none: whose players disagree on an `equal` field; byEq: the others
  // by their `equal` values.
  ok: number;
  okPlayers: number;
  zero: number;
  none: number;
  nonePlayers: number;
  byEq: Map<string, { lobbies: number; players: number; roles: Float64Array | null }>;
  /** Role modes: the players per role of the lobbies counted in okPlayers and nonePlayers (null otherwise). */
  okRoles: Float64Array | null;
  noneRoles: Float64Array | null;
}

/** to += by × v (role tallies; null without roles). */
function addRoles(to: Float64Array | null, v: Int32Array | Float64Array | null, by: number): void {
  if (to && v) for (let r = 0; r < v.length; r++) to[r] += by * v[r];
}

/**
 * Every ticket the queue holds (whatever its state), as explain reads them: by group, by rating; and
 * (difference rule) the whole queue oldest first, whose oldest lobby has the widest window of all.
 */
class ExplainIndex {
  readonly groups = new Map<string, ExplainGroup>();
  readonly ages: Blocks | null;
  readonly tallied: boolean;
  /** Lobbies whose rating is ±∞ (the sum of the players' ratings overflowed): explain scans them all. */
  nonFinite = 0;

  constructor(private readonly p: Prepared, entries: Iterable<Entry>) {
    this.ages = p.rule ? new Blocks(byQueueTime) : null;
    this.tallied = !p.rule && !p.latency;
    const all = [...entries];
    const by = new Map<string, Entry[]>();
    for (const e of all) {
      if (!Number.isFinite(e.rating)) this.nonFinite++;
      for (const g of this.keys(e)) {
        const list = by.get(g);
        if (list) list.push(e);
        else by.set(g, [e]);
      }
    }
    for (const [g, list] of by) {
      const group = this.group(g);
      group.members.fill(sortByRating(list));
      if (this.tallied) for (const e of list) this.tally(group, e, 1);
    }
    if (this.ages) this.ages.fill(all.every((e) => e.canon) ? sortByAge(all) : all.sort(byQueueTime));
  }

  keys(e: Entry): string[] {
    return this.p.latency ? e.regions! : [e.t.region];
  }

  private group(g: string): ExplainGroup {
    let group = this.groups.get(g);
    if (!group) {
      const R = this.p.roles ? this.p.roles.names.length : -1;
      group = {
        members: new Blocks(byRating), ok: 0, okPlayers: 0, zero: 0, none: 0, nonePlayers: 0, byEq: new Map(),
        okRoles: R < 0 ? null : new Float64Array(R), noneRoles: R < 0 ? null : new Float64Array(R),
      };
      this.groups.set(g, group);
    }
    return group;
  }

  /** A party the mode takes (explainTicket's test: no lower bound on the size; role modes: its roles fit a team). */
  ok(e: Entry): boolean {
    return e.roleOk && e.size <= this.p.mode.maxPartySize && e.size <= this.p.mode.playersPerTeam;
  }

  private tally(group: ExplainGroup, e: Entry, by: 1 | -1): void {
    if (!this.ok(e)) return;
    group.ok += by;
    group.okPlayers += by * e.size;
    addRoles(group.okRoles, e.roles, by);
    if (this.p.equalFields.length === 0) return;
    if (e.size === 0) group.zero += by;
    else if (e.eq === null) {
      group.none += by;
      group.nonePlayers += by * e.size;
      addRoles(group.noneRoles, e.roles, by);
    } else {
      let bucket = group.byEq.get(e.eq);
      if (!bucket) group.byEq.set(e.eq, (bucket = { lobbies: 0, players: 0, roles: e.roles ? new Float64Array(e.roles.length) : null }));
      bucket.lobbies += by;
      bucket.players += by * e.size;
      addRoles(bucket.roles, e.roles, by);
      if (bucket.lobbies === 0) group.byEq.delete(e.eq);
    }
  }

  put(e: Entry): void {
    if (!Number.isFinite(e.rating)) this.nonFinite++;
    this.ages?.insert(e);
    for (const g of this.keys(e)) {
      const group = this.group(g);
      group.members.insert(e);
      if (this.tallied) this.tally(group, e, 1);
    }
  }

  drop(e: Entry): void {
    if (!Number.isFinite(e.rating)) this.nonFinite--;
    this.ages?.delete(e);
    for (const g of this.keys(e)) {
      const group = this.groups.get(g)!;
      group.members.delete(e);
      if (this.tallied) this.tally(group, e, -1);
      if (group.members.size === 0) this.groups.delete(g);
    }
  }
}

export class MatchQueue {
  private readonly p: Prepared;
  private readonly entries = new Map<string, Entry>();
  private ex: ExplainIndex | null = null;
  private readonly groups = new Map<string, Group>();
  private readonly scratch = new Scratch();
  private seq = 0;
  /** A ticket was added, updated, released or removed since the last step. */
  private changed = true;
  /** After a step that formed nothing: until then (ms) a step over the same tickets forms nothing again. */
  private quietUntil = Number.NEGATIVE_INFINITY;
  /** The last step's time: a clock that went back steps again. */
  private lastStepMs = Number.NEGATIVE_INFINITY;
  /** Steps skipped because they could only repeat an empty one (see the top). */
  skipped = 0;

  constructor(readonly key: QueueKey, readonly mode: MatchmakingMode) {
    this.p = prepare(mode);
  }

  /** Tickets held, taken ones included. */
  get size(): number {
    return this.entries.size;
  }

  has(lobbyId: string): boolean {
    return this.entries.has(lobbyId);
  }

  /** In a proposal of an earlier step, waiting for remove or release. */
  isTaken(lobbyId: string): boolean {
    return this.entries.get(lobbyId)?.state === TAKEN;
  }

  /** Queues a ticket; a lobby already held is replaced (as update does). */
  add(ticket: Ticket): void {
    const old = this.entries.get(ticket.lobbyId);
    const e = entryOf(this.p, ticket, old ? old.seq : this.seq++);
    if (old) old.state = DEAD;
    this.entries.set(ticket.lobbyId, e); // a replaced lobby keeps its place in the queue order
    if (this.ex) {
      if (old) this.ex.drop(old);
      this.ex.put(e);
    }
    this.enqueue(e);
  }

  /** A new revision of a queued lobby's ticket (queued again even if the old one was taken). */
  update(ticket: Ticket): void {
    this.add(ticket);
  }

  /** The lobby leaves the queue (matched for good, or its search ended). False when it was not held. */
  remove(lobbyId: string): boolean {
    const e = this.entries.get(lobbyId);
    if (!e) return false;
    this.changed = true; // fewer candidates can change a walk (its look-at limit, a party's fit)
    e.state = DEAD;
    this.entries.delete(lobbyId);
    this.ex?.drop(e);
    return true;
  }

  /** A taken lobby back in the queue (its match did not form). False when it was not taken. */
  release(lobbyId: string): boolean {
    const e = this.entries.get(lobbyId);
    if (!e || e.state !== TAKEN) return false;
    this.enqueue(e);
    return true;
  }

  /** What the next step reads: the queued tickets that are not taken, in queue order. */
  tickets(): Ticket[] {
    const out: Ticket[] = [];
    for (const e of this.entries.values()) if (e.state !== TAKEN) out.push(e.t);
    return out;
  }

  /**
   * Why the lobby has not matched yet: exactly what explainTicket(mode, its ticket, every ticket held —
   * taken ones and parties the mode never takes included —, now) gives, or null when the lobby is not
   * held. It looks at the lobbies that can change the answer only: the nearest rating on each side in its
   * group (region; with a latency rule, each region it can play in), and those within both its window and
   * the widest window in the queue (the oldest other lobby's: windows only grow with time in queue), so a
   * call costs O(log n + k), k the lobbies within that window. Without a difference rule every lobby is in
   * window: without a latency rule either, the group's tallies answer (O(1)); with one (a lobby may share
   * several regions with this one, and counts over regions would count it twice) every lobby sharing a
   * region is looked at, as explainTicket does. So is the whole queue while some lobby's rating is ±∞.
   * The first call builds the index (O(n log n)); add and remove keep it from then on (O(log n) and a
   * hundred array moves each).
   */
  explain(lobbyId: string, now: string): Explanation | null {
    const mine = this.entries.get(lobbyId);
    if (!mine) return null;
    const ex = (this.ex ??= new ExplainIndex(this.p, this.entries.values()));
    if (ex.nonFinite > 0) return explainTicket(this.mode, mine.t, Array.from(this.entries.values(), (e) => e.t), now);
    const scan = new ExplainScan(this.mode, mine.t, now);
    const { rule } = this.p;
    const keys = this.p.latency ? scan.regions : [mine.t.region];
    let shared = false;
    for (const g of keys) if (ex.groups.get(g)!.members.size > 1) shared = true;
    if (ex.tallied) {
      // Every other lobby of the region is a candidate but for its party size and the `equal` rules.
      const group = ex.groups.get(mine.t.region)!;
      const okMine = ex.ok(mine) ? 1 : 0;
      const mineOk = okMine * mine.size;
      let candidates: number;
      let players: number;
      // Role modes: the candidates' players per role, into scan.availableRoles.
      const roles = scan.availableRoles;
      if (this.p.equalFields.length === 0) {
        candidates = group.ok - okMine;
        players = group.okPlayers - mineOk;
        addRoles(roles, group.okRoles, 1);
        addRoles(roles, mine.roles, -okMine);
      } else if (mine.size === 0) {
        // Its players (none) agree with any lobby whose own players agree.
        candidates = group.ok - group.none - okMine;
        players = group.okPlayers - group.nonePlayers;
        addRoles(roles, group.okRoles, 1);
        addRoles(roles, group.noneRoles, -1);
      } else if (mine.eq === null) {
        candidates = 0;
        players = 0;
      } else {
        const same = group.byEq.get(mine.eq);
        candidates = group.zero + (same ? same.lobbies : 0) - okMine;
        players = (same ? same.players : 0) - mineOk;
        if (same) addRoles(roles, same.roles, 1);
        addRoles(roles, mine.roles, -okMine);
      }
      scan.candidates = candidates;
      scan.available += players;
      scan.equalBlocked = group.ok - okMine - candidates > 0;
      scan.nearestGap = shared ? 0 : null;
      return scan.result(shared, true);
    }
    // How far a candidate can be: within its window and this lobby's (+∞ without a difference rule).
    let reach = scan.window;
    if (rule && ex.ages) {
      const oldest = ex.ages.first(2).find((e) => e !== mine);
      if (oldest) reach = Math.min(reach, allowedDifference(rule, Math.max(0, scan.nowMs - oldest.queuedMs)));
    }
    const seen = keys.length > 1 ? new Set<Entry>() : null;
    const visit = (e: Entry) => {
      if (seen) {
        if (seen.has(e)) return;
        seen.add(e);
      }
      scan.consider(e.t, e.rating, e.queuedMs, e.roles, e.roleOk);
    };
    const r = mine.rating;
    for (const g of keys) {
      const { blocks } = ex.groups.get(g)!.members;
      const at = ex.groups.get(g)!.members.find(mine)!;
      // Down, then up: the nearest on each side always (the nearest gap), then while within reach (a NaN
      // reach, from a time Date.parse cannot read, reaches nothing: no window holds then).
      let b = at[0];
      let i = at[1] - 1;
      for (let first = true; ; first = false, i--) {
        if (i < 0) {
          if (--b < 0) break;
          i = blocks[b].length - 1;
        }
        const e = blocks[b][i];
        if (!first && !(r - e.rating <= reach)) break;
        visit(e);
      }
      b = at[0];
      i = at[1] + 1;
      for (let first = true; ; first = false, i++) {
        if (i >= blocks[b].length) {
          if (++b >= blocks.length) break;
          i = 0;
        }
        const e = blocks[b][i];
        if (!first && !(e.rating - r <= reach)) break;
        visit(e);
      }
    }
    return scan.result(shared, true);
  }

  /**
   * Merges the tickets added, updated or released since the last step into the sorted index. step() does
   * it first; calling it earlier (e.g. between ticks) takes that work off the step.
   */
  index(): void {
    for (const [g, group] of this.groups) {
      if (group.pending.length === 0) continue;
      const added = group.pending.filter((e) => e.state === PENDING);
      group.pending = [];
      // Dropped first: a released lobby may still be in the arrays from before it was taken.
      const ages = compact(group.ages);
      const ratings = compact(group.ratings);
      for (const e of added) e.state = QUEUED;
      group.ages = merge(ages, sortByAge(added), byAge);
      group.ratings = merge(ratings, sortByRating(added), byRating);
      if (group.ages.length === 0) this.groups.delete(g);
    }
  }

  /** The matches formed now (as formMatches over tickets()); their lobbies are taken. */
  step(now: string, matchId: MatchIdOf): MatchProposal[] {
    const nowMs = Date.parse(now);
    if (!this.changed && nowMs >= this.lastStepMs && nowMs < this.quietUntil) {
      this.skipped++;
      return [];
    }
    this.changed = false;
    this.lastStepMs = nowMs;
    this.index();
    const order: { group: Group; first: number }[] = [];
    for (const [g, group] of this.groups) {
      // Drop what was taken or removed since the last step.
      compact(group.ages);
      compact(group.ratings);
      if (group.ages.length === 0) {
        this.groups.delete(g);
        continue;
      }
      let first = Number.POSITIVE_INFINITY;
      for (const e of group.ages) if (e.seq < first) first = e.seq;
      order.push({ group, first });
    }
    // Region by region in the order each first appears in the queue, as formMatches does.
    order.sort((a, b) => a.first - b.first);
    const proposals: MatchProposal[] = [];
    const taken: Entry[] = [];
    for (const { group } of order) {
      formInGroup(this.p, this.scratch, group.ages, group.ratings, group.region, nowMs, this.key, matchId, proposals, taken);
    }
    for (const e of taken) e.state = TAKEN;
    this.quietUntil = proposals.length === 0 ? this.nextWindowChange(nowMs) : Number.NEGATIVE_INFINITY;
    return proposals;
  }

  /** The first time after `nowMs` a queued lobby's number of expansions changes what a step reads (see the top). */
  private nextWindowChange(nowMs: number): number {
    const rule = this.p.rule;
    if (!rule || !rule.expandEvery || rule.expandEvery <= 0 || rule.expandBy <= 0) return Number.POSITIVE_INFINITY;
    let next = Number.POSITIVE_INFINITY;
    for (const group of this.groups.values()) {
      for (const e of group.ages) {
        const at = changesAt(rule, e.queuedMs, nowMs);
        if (at < next) next = at;
      }
    }
    return next;
  }

  private enqueue(e: Entry): void {
    this.changed = true;
    if (!takes(this.p, e)) {
      e.state = NEVER;
      return;
    }
    e.state = PENDING;
    const g = this.p.latency ? '' : e.t.region;
    let group = this.groups.get(g);
    if (!group) {
      group = { region: this.p.latency ? null : g, ages: [], ratings: [], pending: [] };
      this.groups.set(g, group);
    }
    group.pending.push(e);
  }
}
