import { Inject, Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { LobbyView } from '@spawnpoint/domain';
import { BusQuery } from '@spawnpoint/platform';
import { PlayerLobbyRequest } from '@spawnpoint/proto';
import { LobbyStates } from '../lobby-states';
import { lobbyView } from '../lobby-views';
import { Presence } from '../presence';

export class GetMyLobby extends BusQuery<PlayerLobbyRequest, LobbyView> {}

/** The caller's lobby of the config, read from its stream (404 when not in one); counts as presence. */
@Injectable()
@QueryHandler(GetMyLobby)
export class GetMyLobbyHandler implements IQueryHandler<GetMyLobby> {
  constructor(private readonly states: LobbyStates, @Inject(Presence) private readonly presence: Presence) {}

  async execute({ request: r }: GetMyLobby): Promise<LobbyView> {
    const { lobbyId, state } = await this.states.mine(r);
    this.presence.touch(r.projectId, lobbyId, r.playerId);
    return lobbyView(state);
  }
}
