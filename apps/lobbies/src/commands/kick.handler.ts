import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { LobbyView } from '@spawnpoint/domain';
import { BusCommand } from '@spawnpoint/platform';
import { TargetPlayerRequest } from '@spawnpoint/proto';
import { LobbyStates } from '../lobby-states';
import { viewAfter } from '../lobby-views';
import { LobbyWrites } from '../lobby-writes';

export class KickPlayer extends BusCommand<TargetPlayerRequest, LobbyView> {}

/** The host removes a member. */
@Injectable()
@CommandHandler(KickPlayer)
export class KickPlayerHandler implements ICommandHandler<KickPlayer> {
  constructor(private readonly states: LobbyStates, private readonly writes: LobbyWrites) {}

  async execute({ request: r }: KickPlayer): Promise<LobbyView> {
    const { lobbyId } = await this.states.mine(r, false);
    const ran = await this.writes.run(r.projectId, lobbyId, { type: 'KickPlayer', playerId: r.playerId, targetId: r.targetId, now: this.writes.now() });
    return viewAfter(ran);
  }
}
