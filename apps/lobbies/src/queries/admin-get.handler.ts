import { Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { LobbyView } from '@spawnpoint/domain';
import { BusQuery } from '@spawnpoint/platform';
import { AdminLobbyRequest } from '@spawnpoint/proto';
import { LobbyStates } from '../lobby-states';
import { lobbyView } from '../lobby-views';

export class AdminGetLobby extends BusQuery<AdminLobbyRequest, LobbyView> {}

/** A game backend (server key) reads any lobby of its project. */
@Injectable()
@QueryHandler(AdminGetLobby)
export class AdminGetLobbyHandler implements IQueryHandler<AdminGetLobby> {
  constructor(private readonly states: LobbyStates) {}

  async execute({ request: r }: AdminGetLobby): Promise<LobbyView> {
    return lobbyView(await this.states.owned(r));
  }
}
