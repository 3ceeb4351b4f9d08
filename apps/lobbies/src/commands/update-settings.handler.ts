import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { lobbyCodeStream, LobbyView } from '@spawnpoint/domain';
import { BusCommand, LobbyConfigs } from '@spawnpoint/platform';
import { UpdateLobbySettingsRequest } from '@spawnpoint/proto';
import { checkSettings } from '../limits';
import { LobbyClaims } from '../lobby-claims';
import { LobbyStates } from '../lobby-states';
import { viewAfter } from '../lobby-views';
import { LobbyWrites } from '../lobby-writes';

export class UpdateLobbySettings extends BusCommand<UpdateLobbySettingsRequest, LobbyView> {}

/** The host changes the lobby's name, size, privacy, late join or settings. */
@Injectable()
@CommandHandler(UpdateLobbySettings)
export class UpdateLobbySettingsHandler implements ICommandHandler<UpdateLobbySettings> {
  constructor(private readonly configs: LobbyConfigs, private readonly states: LobbyStates, private readonly claims: LobbyClaims, private readonly writes: LobbyWrites) {}

  async execute({ request: r }: UpdateLobbySettings): Promise<LobbyView> {
    const config = await this.configs.get(r.projectId, r.config);
    const c = r.changes;
    if (c.settings !== undefined) checkSettings(c.settings);
    const { lobbyId, state } = await this.states.mine(r);
    // Going private needs a code of its own, claimed before the change (released again if refused).
    const code = c.isPrivate === true && !state.isPrivate ? await this.claims.freeCode(r.projectId, config, lobbyId) : undefined;
    try {
      const ran = await this.writes.run(r.projectId, lobbyId, { type: 'UpdateSettings', playerId: r.playerId, ...c, code, now: this.writes.now() });
      return viewAfter(ran);
    } catch (err) {
      if (code) await this.claims.release(lobbyCodeStream(r.projectId, code), lobbyId);
      throw err;
    }
  }
}
