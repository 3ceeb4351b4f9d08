import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { LobbyView } from '@spawnpoint/domain';
import { BusCommand } from '@spawnpoint/platform';
import { PlayerLobbyRequest } from '@spawnpoint/proto';
import { LobbyStates } from '../lobby-states';
import { viewAfter } from '../lobby-views';
import { LobbyAggregate } from '../lobby-aggregate';

export class CancelMatchmaking extends BusCommand<PlayerLobbyRequest, LobbyView> {}

/** The host leaves the queue, or declines the match found for the lobby (its match learns of it from the lobby's event). */
@Injectable()
@CommandHandler(CancelMatchmaking)
export class CancelMatchmakingHandler implements ICommandHandler<CancelMatchmaking> {
  constructor(private readonly states: LobbyStates, private readonly lobbies: LobbyAggregate) {}

  async execute({ request: r }: CancelMatchmaking): Promise<LobbyView> {
    const { lobbyId } = await this.states.mine(r, false);
    const ran = await this.lobbies.handle(lobbyId, { type: 'CancelMatchmaking', playerId: r.playerId, now: this.lobbies.now() }, { projectId: r.projectId });
    return viewAfter(ran);
  }
}
