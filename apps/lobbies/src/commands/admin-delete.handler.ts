import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { BusCommand } from '@spawnpoint/platform';
import { AdminLobbyRequest, DeletedLobby } from '@spawnpoint/proto';
import { LobbyStates } from '../lobby-states';
import { deletedLobby } from '../lobby-views';
import { LobbyWrites } from '../lobby-writes';

export class AdminDeleteLobby extends BusCommand<AdminLobbyRequest, DeletedLobby> {}

/** A game backend (server key) deletes a lobby of its project. */
@Injectable()
@CommandHandler(AdminDeleteLobby)
export class AdminDeleteLobbyHandler implements ICommandHandler<AdminDeleteLobby> {
  constructor(private readonly states: LobbyStates, private readonly writes: LobbyWrites) {}

  async execute({ request: r }: AdminDeleteLobby): Promise<DeletedLobby> {
    await this.states.owned(r);
    await this.writes.deleteLobby(r.projectId, r.lobbyId, 'admin');
    return deletedLobby(r.lobbyId);
  }
}
