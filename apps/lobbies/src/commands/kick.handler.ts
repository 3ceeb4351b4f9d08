import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { LobbyView } from '@spawnpoint/domain';
import { BusCommand } from '@spawnpoint/platform';
import { TargetPlayerRequest } from '@spawnpoint/proto';
import { LobbyStates } from '../lobby-states';
import { viewAfter } from '../lobby-views';
import { LobbyAggregate } from '../lobby-aggregate';

export class KickPlayer extends BusCommand<TargetPlayerRequest, LobbyView> {}

/** The host removes a member. */
@Injectable()
@CommandHandler(KickPlayer)
export class KickPlayerHandler implements ICommandHandler<KickPlayer> {
  constructor(private readonly states: LobbyStates, private readonly lobbies: LobbyAggregate) {}

  async execute({ request: r }: KickPlayer): Promise<LobbyView> {
    const { lobbyId } = await this.states.mine(r, false);
    const ran = await this.lobbies.handle(lobbyId, { type: 'KickPlayer', playerId: r.playerId, targetId: r.targetId, now: this.lobbies.now() }, { projectId: r.projectId });
    return viewAfter(ran);
  }
}
