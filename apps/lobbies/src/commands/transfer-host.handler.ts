import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { LobbyView } from '@spawnpoint/domain';
import { BusCommand } from '@spawnpoint/platform';
import { TargetPlayerRequest } from '@spawnpoint/proto';
import { LobbyStates } from '../lobby-states';
import { viewAfter } from '../lobby-views';
import { LobbyAggregate } from '../lobby-aggregate';

export class TransferHost extends BusCommand<TargetPlayerRequest, LobbyView> {}

/** The host hands the lobby to another member. */
@Injectable()
@CommandHandler(TransferHost)
export class TransferHostHandler implements ICommandHandler<TransferHost> {
  constructor(private readonly states: LobbyStates, private readonly lobbies: LobbyAggregate) {}

  async execute({ request: r }: TransferHost): Promise<LobbyView> {
    const { lobbyId } = await this.states.mine(r, false);
    const ran = await this.lobbies.handle(lobbyId, { type: 'TransferHost', playerId: r.playerId, targetId: r.targetId, now: this.lobbies.now() }, { projectId: r.projectId });
    return viewAfter(ran);
  }
}
