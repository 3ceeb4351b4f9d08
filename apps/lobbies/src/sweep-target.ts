// What the sweeper acts through: the lobby configs, the write path, the lost-broadcast repair.
import { LobbyConfigs } from '@spawnpoint/service-clients';
import { Injectable } from '@nestjs/common';
import { LobbyConfig } from '@spawnpoint/domain';
import { LobbyAggregate } from './lobby-aggregate';
import { LobbyBroadcast } from './lobby-broadcast';
import { LobbyStates } from './lobby-states';
import { SweepTarget } from './sweeper';

@Injectable()
export class LobbySweepTarget implements SweepTarget {
  constructor(private readonly configs: LobbyConfigs, private readonly lobbies: LobbyAggregate, private readonly states: LobbyStates, private readonly broadcast: LobbyBroadcast) {}

  lobbyConfig(projectId: string, name: string): Promise<LobbyConfig> {
    return this.configs.get(projectId, name);
  }

  async deleteLobby(projectId: string, lobbyId: string, reason: 'idle'): Promise<void> {
    await this.lobbies.handle(lobbyId, { type: 'DeleteLobby', reason, now: this.lobbies.now() }, { projectId });
  }

  async repeatDeletion(lobbyId: string): Promise<boolean> {
    return this.broadcast.repeatDeletion(lobbyId, await this.states.load(lobbyId));
  }

  /** Members silent past the config's heartbeatTimeout, removed. */
  async removeStale(projectId: string, lobbyId: string, playerIds: string[], config: LobbyConfig): Promise<void> {
    await this.lobbies.handle(lobbyId, { type: 'RemoveStalePlayers', playerIds, hostLeaveBehavior: config.hostLeaveBehavior, now: this.lobbies.now() }, { projectId });
  }
}
