import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { DomainError } from '@spawnpoint/domain';
import { BusCommand } from '@spawnpoint/platform';
import { DeletedLobby, PlayerLobbyRequest } from '@spawnpoint/proto';
import { LobbyStates } from '../lobby-states';
import { deletedLobby } from '../lobby-views';
import { LobbyAggregate } from '../lobby-aggregate';

export class CloseLobby extends BusCommand<PlayerLobbyRequest, DeletedLobby> {}

/** Legacy API: the host marks the lobby finished; it is deleted. */
@Injectable()
@CommandHandler(CloseLobby)
export class CloseLobbyHandler implements ICommandHandler<CloseLobby> {
  constructor(private readonly states: LobbyStates, private readonly lobbies: LobbyAggregate) {}

  async execute({ request: r }: CloseLobby): Promise<DeletedLobby> {
    const { lobbyId, state } = await this.states.mine(r);
    if (state.host !== r.playerId) throw new DomainError('forbidden', 'only the host can finish the lobby');
    await this.lobbies.handle(lobbyId, { type: 'DeleteLobby', reason: 'host_left', now: this.lobbies.now() }, { projectId: r.projectId });
    return deletedLobby(lobbyId);
  }
}
