import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { LobbyView } from '@spawnpoint/domain';
import { BusCommand } from '@spawnpoint/platform';
import { LobbyConfigs } from '@spawnpoint/service-clients';
import { PlayerLobbyRequest } from '@spawnpoint/proto';
import { LobbyLaunch } from '../lobby-launch';
import { LobbyStates } from '../lobby-states';
import { lobbyView } from '../lobby-views';
import { LobbyAggregate } from '../lobby-aggregate';

export class StartLobby extends BusCommand<PlayerLobbyRequest, LobbyView> {}

/** Direct start: the lobby is `starting` at once; its server is launched (lobby-launch.ts). */
@Injectable()
@CommandHandler(StartLobby)
export class StartLobbyHandler implements ICommandHandler<StartLobby> {
  constructor(private readonly configs: LobbyConfigs, private readonly states: LobbyStates, private readonly lobbies: LobbyAggregate, private readonly launch: LobbyLaunch) {}

  async execute({ request: r }: StartLobby): Promise<LobbyView> {
    const config = await this.configs.get(r.projectId, r.config);
    const { lobbyId } = await this.states.mine(r, false);
    const ran = await this.lobbies.handle(lobbyId, { type: 'StartGame', playerId: r.playerId, now: this.lobbies.now() }, { projectId: r.projectId });
    return lobbyView((await this.launch.launch(r.projectId, lobbyId, config)) ?? ran.state);
  }
}
