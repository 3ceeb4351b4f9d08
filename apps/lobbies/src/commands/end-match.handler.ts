import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { LobbyView } from '@spawnpoint/domain';
import { BusCommand, GameServers } from '@spawnpoint/platform';
import { PlayerLobbyRequest } from '@spawnpoint/proto';
import { LobbyStates } from '../lobby-states';
import { viewAfter } from '../lobby-views';
import { LobbyWrites } from '../lobby-writes';

export class EndMatch extends BusCommand<PlayerLobbyRequest, LobbyView> {}

/** The host ends the match: the lobby is waiting again and its server is stopped (a matchmade game's: once no lobby is left in it). */
@Injectable()
@CommandHandler(EndMatch)
export class EndMatchHandler implements ICommandHandler<EndMatch> {
  constructor(private readonly states: LobbyStates, private readonly writes: LobbyWrites, private readonly servers: GameServers) {}

  async execute({ request: r }: EndMatch): Promise<LobbyView> {
    const { lobbyId, state } = await this.states.mine(r);
    // A match's server stops when the match's last lobby leaves it (the match workflow), not with one lobby.
    const server = state.matchmaking?.matchId ? undefined : state.server?.instance_id;
    const ran = await this.writes.run(r.projectId, lobbyId, { type: 'EndMatch', playerId: r.playerId, now: this.writes.now() });
    if (server) void this.servers.stop(r.projectId, server);
    return viewAfter(ran);
  }
}
