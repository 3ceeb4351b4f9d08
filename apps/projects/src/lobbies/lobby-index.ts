// In-memory lookups the lobbies service answers "which lobby" from (no read-model schema yet):
// (project, config, player) → lobby and (project, code) → lobby, kept from the lobby events.
import { LobbyEvent } from '@spawnpoint/domain';

interface Entry { projectId: string; config: string; code: string | null; members: Set<string> }

const key = (...parts: string[]) => parts.join('\u0000');

export class LobbyIndex {
  private readonly lobbies = new Map<string, Entry>();
  private readonly byPlayer = new Map<string, string>();
  private readonly byCode = new Map<string, string>();

  /** Project and config of a live lobby, or null. */
  lobby(lobbyId: string): { projectId: string; config: string } | null {
    const e = this.lobbies.get(lobbyId);
    return e ? { projectId: e.projectId, config: e.config } : null;
  }

  lobbyOf(projectId: string, config: string, playerId: string): string | null {
    return this.byPlayer.get(key(projectId, config, playerId)) ?? null;
  }

  lobbyWithCode(projectId: string, code: string): string | null {
    return this.byCode.get(key(projectId, code)) ?? null;
  }

  /** `projectId`: from the event's metadata (LobbyCreated carries no project). */
  apply(event: LobbyEvent, projectId: string | undefined): void {
    if (event.type === 'LobbyCreated') {
      if (!projectId) return;
      const d = event.data;
      this.lobbies.set(d.lobbyId, { projectId, config: d.config, code: d.code, members: new Set([d.hostId]) });
      this.byPlayer.set(key(projectId, d.config, d.hostId), d.lobbyId);
      if (d.code) this.byCode.set(key(projectId, d.code), d.lobbyId);
      return;
    }
    const e = this.lobbies.get(event.data.lobbyId);
    if (!e) return;
    switch (event.type) {
      case 'PlayerJoined':
        e.members.add(event.data.playerId);
        this.byPlayer.set(key(e.projectId, e.config, event.data.playerId), event.data.lobbyId);
        return;
      case 'PlayerLeft':
      case 'PlayerKicked':
        e.members.delete(event.data.playerId);
        this.forgetPlayer(e, event.data.playerId, event.data.lobbyId);
        return;
      case 'LobbySettingsUpdated':
        if (event.data.changes.code !== undefined) {
          if (e.code) this.byCode.delete(key(e.projectId, e.code));
          e.code = event.data.changes.code;
          if (e.code) this.byCode.set(key(e.projectId, e.code), event.data.lobbyId);
        }
        return;
      case 'LobbyDeleted':
        for (const p of e.members) this.forgetPlayer(e, p, event.data.lobbyId);
        if (e.code && this.byCode.get(key(e.projectId, e.code)) === event.data.lobbyId) this.byCode.delete(key(e.projectId, e.code));
        this.lobbies.delete(event.data.lobbyId);
        return;
      default:
        return;
    }
  }

  private forgetPlayer(e: Entry, playerId: string, lobbyId: string) {
    const k = key(e.projectId, e.config, playerId);
    if (this.byPlayer.get(k) === lobbyId) this.byPlayer.delete(k);
  }
}
