import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { LobbyView } from '@spawnpoint/domain';
import { BusCommand } from '@spawnpoint/platform';
import { PlayerLobbyRequest } from '@spawnpoint/proto';
import { LobbyStates } from '../lobby-states';
import { viewAfter } from '../lobby-views';
import { LobbyAggregate } from '../lobby-aggregate';

export class DeclineMatch extends BusCommand<PlayerLobbyRequest, LobbyView> {}

/** Any member declines the match found for the lobby (match_found only, else 409): the match dissolves (decisions.md "Matchmaking"). */
@Injectable()
@CommandHandler(DeclineMatch)
export class DeclineMatchHandler implements ICommandHandler<DeclineMatch> {
  constructor(private readonly states: LobbyStates, private readonly lobbies: LobbyAggregate) {}

  async execute({ request: r }: DeclineMatch): Promise<LobbyView> {
    const { lobbyId } = await this.states.mine(r, false);
    const ran = await this.lobbies.handle(lobbyId, { type: 'DeclineMatch', playerId: r.playerId, now: this.lobbies.now() }, { projectId: r.projectId });
    return viewAfter(ran);
  }
}
