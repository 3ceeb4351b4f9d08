import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { LobbyView } from '@spawnpoint/domain';
import { BusCommand } from '@spawnpoint/platform';
import { PlayerLobbyRequest } from '@spawnpoint/proto';
import { LobbyStates } from '../lobby-states';
import { viewAfter } from '../lobby-views';
import { LobbyAggregate } from '../lobby-aggregate';

export class EndMatch extends BusCommand<PlayerLobbyRequest, LobbyView> {}

/** The host ends the match: the lobby is waiting again and its server is stopped (a matchmade game's: once no lobby is left in it). */
@Injectable()
@CommandHandler(EndMatch)
export class EndMatchHandler implements ICommandHandler<EndMatch> {
  constructor(private readonly states: LobbyStates, private readonly lobbies: LobbyAggregate) {}

  async execute({ request: r }: EndMatch): Promise<LobbyView> {
    const { lobbyId } = await this.states.mine(r);
    // The lobby's server is stopped by the lobby-launch workflow's StopLobbyServer intent (retried until the servers
    // service answers); a match's server when the match's last lobby leaves it (the match workflow).
    const ran = await this.lobbies.handle(lobbyId, { type: 'EndMatch', playerId: r.playerId, now: this.lobbies.now() }, { projectId: r.projectId });
    return viewAfter(ran);
  }
}
