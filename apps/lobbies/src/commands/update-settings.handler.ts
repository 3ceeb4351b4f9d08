import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { LobbyView } from '@spawnpoint/domain';
import { BusCommand } from '@spawnpoint/platform';
import { LobbyConfigs } from '@spawnpoint/service-clients';
import { UpdateLobbySettingsRequest } from '@spawnpoint/proto';
import { checkSettings } from '../limits';
import { LobbyStates } from '../lobby-states';
import { viewAfter } from '../lobby-views';
import { LobbyAggregate } from '../lobby-aggregate';

export class UpdateLobbySettings extends BusCommand<UpdateLobbySettingsRequest, LobbyView> {}

/** The host changes the lobby's name, size, privacy (the invite code stays), late join or settings. */
@Injectable()
@CommandHandler(UpdateLobbySettings)
export class UpdateLobbySettingsHandler implements ICommandHandler<UpdateLobbySettings> {
  constructor(private readonly configs: LobbyConfigs, private readonly states: LobbyStates, private readonly lobbies: LobbyAggregate) {}

  async execute({ request: r }: UpdateLobbySettings): Promise<LobbyView> {
    await this.configs.get(r.projectId, r.config);
    const c = r.changes;
    if (c.settings !== undefined) checkSettings(c.settings);
    const { lobbyId } = await this.states.mine(r);
    const ran = await this.lobbies.handle(lobbyId, { type: 'UpdateSettings', playerId: r.playerId, ...c, now: this.lobbies.now() }, { projectId: r.projectId });
    return viewAfter(ran);
  }
}
