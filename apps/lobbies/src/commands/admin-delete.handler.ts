import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { BusCommand } from '@spawnpoint/platform';
import { AdminLobbyRequest, DeletedLobby } from '@spawnpoint/proto';
import { LobbyStates } from '../lobby-states';
import { deletedLobby } from '../lobby-views';
import { LobbyAggregate } from '../lobby-aggregate';

export class AdminDeleteLobby extends BusCommand<AdminLobbyRequest, DeletedLobby> {}

/** A game backend (server key) deletes a lobby of its project. */
@Injectable()
@CommandHandler(AdminDeleteLobby)
export class AdminDeleteLobbyHandler implements ICommandHandler<AdminDeleteLobby> {
  constructor(private readonly states: LobbyStates, private readonly lobbies: LobbyAggregate) {}

  async execute({ request: r }: AdminDeleteLobby): Promise<DeletedLobby> {
    await this.states.owned(r);
    await this.lobbies.handle(r.lobbyId, { type: 'DeleteLobby', reason: 'admin', now: this.lobbies.now() }, { projectId: r.projectId });
    return deletedLobby(r.lobbyId);
  }
}
