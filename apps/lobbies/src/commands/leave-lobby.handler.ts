import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { BusCommand } from '@spawnpoint/platform';
import { LobbyConfigs } from '@spawnpoint/service-clients';
import { LeftLobby, PlayerLobbyRequest } from '@spawnpoint/proto';
import { LobbyStates } from '../lobby-states';
import { leftLobby } from '../lobby-views';
import { LobbyAggregate } from '../lobby-aggregate';

export class LeaveLobby extends BusCommand<PlayerLobbyRequest, LeftLobby> {}

/** The caller leaves their lobby; a leaving host is replaced or the lobby closed, as the config says. */
@Injectable()
@CommandHandler(LeaveLobby)
export class LeaveLobbyHandler implements ICommandHandler<LeaveLobby> {
  constructor(private readonly configs: LobbyConfigs, private readonly states: LobbyStates, private readonly lobbies: LobbyAggregate) {}

  async execute({ request: r }: LeaveLobby): Promise<LeftLobby> {
    const config = await this.configs.get(r.projectId, r.config);
    const { lobbyId } = await this.states.mine(r, false);
    await this.lobbies.handle(lobbyId, { type: 'LeaveLobby', playerId: r.playerId, hostLeaveBehavior: config.hostLeaveBehavior, now: this.lobbies.now() }, { projectId: r.projectId });
    return leftLobby(lobbyId);
  }
}
