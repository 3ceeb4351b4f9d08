// Who was seen when, in memory: members' requests and heartbeats, and open event streams (reported by
// the gateways). Soft state: after a restart every member starts with a fresh grace period
// (`startedAt`), so nobody is removed for silence the service did not witness.
import { LobbyPresence } from '@spawnpoint/proto';

type Entry = LobbyPresence['entries'][number];

export class Presence {
  readonly startedAt: number;
  private readonly seen = new Map<string, Map<string, number>>();
  private pending: Entry[] = [];

  /** `now`: the injected clock, in milliseconds. */
  constructor(private readonly now: () => number) {
    this.startedAt = now();
  }

  /** A member request served here: recorded, and shared with other replicas at the next flush. */
  touch(projectId: string, lobbyId: string, playerId: string, at = this.now()): void {
    this.record([{ projectId, lobbyId, playerId }], at);
    this.pending.push({ projectId, lobbyId, playerId });
  }

  record(entries: Entry[], at: number): void {
    for (const e of entries) {
      let players = this.seen.get(e.lobbyId);
      if (!players) this.seen.set(e.lobbyId, (players = new Map()));
      if ((players.get(e.playerId) ?? 0) < at) players.set(e.playerId, at);
    }
  }

  /** Touches since the last call (to broadcast to other replicas). */
  takePending(): Entry[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }

  lastSeen(lobbyId: string, playerId: string): number {
    return Math.max(this.startedAt, this.seen.get(lobbyId)?.get(playerId) ?? 0);
  }

  lastInLobby(lobbyId: string): number {
    let last = this.startedAt;
    for (const at of this.seen.get(lobbyId)?.values() ?? []) last = Math.max(last, at);
    return last;
  }

  /** Lobbies with presence recorded. */
  lobbyIds(): string[] {
    return [...this.seen.keys()];
  }

  /** Lobbies that no longer exist. */
  forget(lobbyIds: string[]): void {
    for (const id of lobbyIds) this.seen.delete(id);
  }
}
