// The last few seconds of lobby updates, per lobby: a stream that opens while an update is in flight
// (between the service reading the lobby and the stream being registered) catches it from here.
import { LobbyUpdate } from '@spawnpoint/proto';

export class RecentUpdates {
  private readonly byLobby = new Map<string, { at: number; update: LobbyUpdate }[]>();

  constructor(private readonly keepMs = 5_000) {}

  add(update: LobbyUpdate, now = Date.now()): void {
    let list = this.byLobby.get(update.lobbyId);
    if (!list) this.byLobby.set(update.lobbyId, (list = []));
    list.push({ at: now, update });
  }

  after(lobbyId: string, revision: number): LobbyUpdate[] {
    return (this.byLobby.get(lobbyId) ?? []).filter((e) => e.update.revision > revision).map((e) => e.update).sort((a, b) => a.revision - b.revision);
  }

  prune(now = Date.now()): void {
    for (const [lobbyId, list] of this.byLobby) {
      const kept = list.filter((e) => now - e.at < this.keepMs);
      if (kept.length) this.byLobby.set(lobbyId, kept);
      else this.byLobby.delete(lobbyId);
    }
  }
}
