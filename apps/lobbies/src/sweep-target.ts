// What the sweeper acts through: the lobby configs, the write path, the lost-broadcast repair.
import { LobbyConfigs } from '@spawnpoint/platform';
import { Injectable } from '@nestjs/common';
import { LobbyConfig } from '@spawnpoint/domain';
import { LobbyBroadcast } from './lobby-broadcast';
import { LobbyWrites } from './lobby-writes';
import { SweepTarget } from './sweeper';

@Injectable()
export class LobbySweepTarget implements SweepTarget {
  constructor(private readonly configs: LobbyConfigs, private readonly writes: LobbyWrites, private readonly broadcast: LobbyBroadcast) {}

  lobbyConfig(projectId: string, name: string): Promise<LobbyConfig> {
    return this.configs.get(projectId, name);
  }

  deleteLobby(projectId: string, lobbyId: string, reason: 'idle'): Promise<void> {
    return this.writes.deleteLobby(projectId, lobbyId, reason);
  }

  repeatDeletion(lobbyId: string): Promise<boolean> {
    return this.broadcast.repeatDeletion(lobbyId);
  }

  removeStale(projectId: string, lobbyId: string, playerIds: string[], config: LobbyConfig): Promise<void> {
    return this.writes.removeStale(projectId, lobbyId, playerIds, config);
  }
}
