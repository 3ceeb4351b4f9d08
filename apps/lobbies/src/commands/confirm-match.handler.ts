import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { LobbyView } from '@spawnpoint/domain';
import { BusCommand } from '@spawnpoint/platform';
import { PlayerLobbyRequest } from '@spawnpoint/proto';
import { LobbyStates } from '../lobby-states';
import { viewAfter } from '../lobby-views';
import { LobbyAggregate } from '../lobby-aggregate';

export class ConfirmMatch extends BusCommand<PlayerLobbyRequest, LobbyView> {}

/** Any member confirms the match found for the lobby (once per lobby; again is a no-op). */
@Injectable()
@CommandHandler(ConfirmMatch)
export class ConfirmMatchHandler implements ICommandHandler<ConfirmMatch> {
  constructor(private readonly states: LobbyStates, private readonly lobbies: LobbyAggregate) {}

  async execute({ request: r }: ConfirmMatch): Promise<LobbyView> {
    const { lobbyId } = await this.states.mine(r, false);
    const ran = await this.lobbies.handle(lobbyId, { type: 'ConfirmMatch', playerId: r.playerId, now: this.lobbies.now() }, { projectId: r.projectId });
    return viewAfter(ran);
  }
}
