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
import { MatchmakingMode } from './mode';
import type { MatchProposal } from './match';
import { byAge, byRating, Entry, eligible, entryOf, formInGroup, MatchIdOf, prepare, Prepared, QueueKey, Scratch, sortByAge, sortByRating, Ticket } from './step';

const QUEUED = 0; // in its group's sorted arrays
const PENDING = 1; // to be merged in at the next step
const TAKEN = 2; // in a proposal, waiting for remove / release
const DEAD = 3; // replaced or removed (still in the arrays until the next step drops it)
const NEVER = 4; // a party size the mode never matches: held, never in a step

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
function compact(entries: Entry[]): Entry[] {
  let k = 0;
  for (let i = 0; i < entries.length; i++) if (entries[i].state === QUEUED) entries[k++] = entries[i];
  entries.length = k;
  return entries;
}

export class MatchQueue {
  private readonly p: Prepared;
  private readonly entries = new Map<string, Entry>();
  private readonly groups = new Map<string, Group>();
  private readonly scratch = new Scratch();
  private seq = 0;

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
    e.state = DEAD;
    this.entries.delete(lobbyId);
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
    if (this.mode.roles) return [];
    const nowMs = Date.parse(now);
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
    return proposals;
  }

  private enqueue(e: Entry): void {
    if (!eligible(this.p, e.size)) {
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
