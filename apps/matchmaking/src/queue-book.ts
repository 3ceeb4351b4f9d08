// The queues in memory: every queued lobby's current ticket, by (project, config, mode), as the lobbies'
// events issue them (the tickets projection feeds it; a start loads the table). Pure and synchronous: it
// runs in the queue worker (queue-book.worker.ts), which the main thread reaches through QueueBookProxy.
// Each queue keeps an incremental matching index (MatchQueue) for its mode, fed with every change, so a
// tick costs what changed plus one pass. Lobbies a proposal of this process named are taken until the
// outcome is known (their reservation, a new ticket, or the end of the match), so a tick never proposes
// them twice.
import { MatchIdOf, MatchmakingMode, MatchProposal, MatchQueue, type QueueTicket, type Ticket } from '@spawnpoint/domain';

export interface QueueId { projectId: string; config: string; mode: string }

export interface Queue extends QueueId {
  tickets: Map<string, Ticket>;
  /** The matching index for the mode it was built with (rebuilt when the mode changes). */
  engine: { mode: string; index: MatchQueue } | null;
}

const keyOf = (q: QueueId) => `${q.projectId}\u0000${q.config}\u0000${q.mode}`;
const playerKey = (projectId: string, config: string, playerId: string) => `${projectId}\u0000${config}\u0000${playerId}`;

export class QueueBook {
  private readonly queues = new Map<string, Queue>();
  /** lobby id → the queue key it is in. */
  private readonly where = new Map<string, string>();
  /** lobby id → the match this process proposed it for (awaiting the outcome). */
  private readonly proposed = new Map<string, string>();
  /** match id → its lobbies (to let them go when the match is over). */
  private readonly byMatch = new Map<string, string[]>();
  /** (project, config, player) → the queued lobby the player is in (explain's lookup). */
  private readonly byPlayer = new Map<string, string>();

  /** A lobby's ticket; an older ticket than the one held is ignored (events may be heard twice). */
  put(lobbyId: string, q: QueueTicket): void {
    const key = keyOf(q);
    const before = this.where.get(lobbyId);
    if (before !== undefined) {
      const held = this.queues.get(before)?.tickets.get(lobbyId);
      // An older ticket, or this one heard again: nothing changes (a proposed lobby stays proposed).
      if (held && (held.ticket > q.ticket || (held.ticket === q.ticket && before === key))) return;
      if (before !== key) this.remove(lobbyId);
    }
    const old = this.queues.get(key)?.tickets.get(lobbyId);
    if (old) for (const p of old.players) this.byPlayer.delete(playerKey(q.projectId, q.config, p.id));
    for (const p of q.players) this.byPlayer.set(playerKey(q.projectId, q.config, p.id), lobbyId);
    let queue = this.queues.get(key);
    if (!queue) this.queues.set(key, (queue = { projectId: q.projectId, config: q.config, mode: q.mode, tickets: new Map(), engine: null }));
    const ticket: Ticket = { lobbyId, ticket: q.ticket, region: q.region, queuedAt: q.queuedAt, players: q.players };
    queue.tickets.set(lobbyId, ticket);
    // A new ticket is queued again (taken or not: a reservation at the old one cannot hold).
    queue.engine?.index.update(ticket);
    this.where.set(lobbyId, key);
    this.proposed.delete(lobbyId);
  }

  /** Out of the queue (reserved, found, ended, deleted). */
  remove(lobbyId: string): void {
    const key = this.where.get(lobbyId);
    this.proposed.delete(lobbyId);
    if (key === undefined) return;
    this.where.delete(lobbyId);
    const queue = this.queues.get(key);
    if (!queue) return;
    for (const p of queue.tickets.get(lobbyId)?.players ?? []) {
      const k = playerKey(queue.projectId, queue.config, p.id);
      if (this.byPlayer.get(k) === lobbyId) this.byPlayer.delete(k);
    }
    queue.tickets.delete(lobbyId);
    queue.engine?.index.remove(lobbyId);
    if (queue.tickets.size === 0) this.queues.delete(key);
  }

  /** Held back until `matchOver(matchId)` or their next ticket. */
  propose(matchId: string, lobbyIds: string[]): void {
    for (const id of lobbyIds) this.proposed.set(id, matchId);
    this.byMatch.set(matchId, lobbyIds);
  }

  /** A lobby held for `key` (a fill): out of the matching index until `matchOver(key)` or its next ticket. */
  hold(key: string, lobbyId: string): void {
    this.propose(key, [lobbyId]);
    this.ticketOf(lobbyId)?.queue.engine?.index.remove(lobbyId);
  }

  /** The match is over (or was never recorded): its lobbies still queued are free to match again. */
  matchOver(matchId: string): void {
    for (const id of this.byMatch.get(matchId) ?? []) {
      if (this.proposed.get(id) !== matchId) continue;
      this.proposed.delete(id);
      const at = this.ticketOf(id);
      const engine = at?.queue.engine?.index;
      if (!at || !engine) continue;
      // Taken by a step of this index, or left out when the index was built while it was proposed.
      if (!engine.release(id) && !engine.has(id)) engine.add(at.ticket);
    }
    this.byMatch.delete(matchId);
  }

  /** The matches the queue forms now under `mode`; their lobbies are taken until their outcome is known. */
  step(queue: Queue, mode: MatchmakingMode, now: string, matchId: MatchIdOf): MatchProposal[] {
    const modeKey = JSON.stringify(mode);
    if (!queue.engine || queue.engine.mode !== modeKey) {
      const index = new MatchQueue({ projectId: queue.projectId, config: queue.config }, mode);
      for (const t of queue.tickets.values()) if (!this.proposed.has(t.lobbyId)) index.add(t);
      queue.engine = { mode: modeKey, index };
    }
    const proposals = queue.engine.index.step(now, matchId);
    for (const p of proposals) this.propose(p.matchId, p.lobbies.map((l) => l.lobbyId));
    return proposals.map((p) => ({ ...p, allowBackfill: mode.allowBackfill, playersPerTeam: mode.playersPerTeam }));
  }

  queue(id: QueueId): Queue | undefined {
    return this.queues.get(keyOf(id));
  }

  ticketOf(lobbyId: string): { queue: Queue; ticket: Ticket; proposedFor: string | null } | null {
    const key = this.where.get(lobbyId);
    const queue = key === undefined ? undefined : this.queues.get(key);
    const ticket = queue?.tickets.get(lobbyId);
    return queue && ticket ? { queue, ticket, proposedFor: this.proposed.get(lobbyId) ?? null } : null;
  }

  /** The queue's tickets no proposal of this process holds. */
  free(queue: Queue): Ticket[] {
    const out: Ticket[] = [];
    for (const t of queue.tickets.values()) if (!this.proposed.has(t.lobbyId)) out.push(t);
    return out;
  }

  /** The queued lobby of a player in a config (null when not queued). */
  lobbyOf(projectId: string, config: string, playerId: string): string | null {
    return this.byPlayer.get(playerKey(projectId, config, playerId)) ?? null;
  }

  /** Every queue (proposed lobbies included: they are still searching). */
  all(): IterableIterator<Queue> {
    return this.queues.values();
  }

  get size(): number {
    return this.where.size;
  }

  clear(): void {
    this.queues.clear();
    this.where.clear();
    this.proposed.clear();
    this.byMatch.clear();
    this.byPlayer.clear();
  }
}
