import { Inject, Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { LobbyView } from '@spawnpoint/domain';
import { BusCommand } from '@spawnpoint/platform';
import { UpdatePlayerStateRequest } from '@spawnpoint/proto';
import { checkState } from '../limits';
import { isLive, LobbyStates } from '../lobby-states';
import { viewAfter } from '../lobby-views';
import { LobbyAggregate } from '../lobby-aggregate';
import { Presence } from '../presence';

export class UpdateMyState extends BusCommand<UpdatePlayerStateRequest, LobbyView> {}

/** The caller's own player state (or, by the host, another member's), merged (ready flags and the like): many members at once, on the lobby's lane. */
@Injectable()
@CommandHandler(UpdateMyState)
export class UpdateMyStateHandler implements ICommandHandler<UpdateMyState> {
  constructor(private readonly states: LobbyStates, private readonly lobbies: LobbyAggregate, @Inject(Presence) private readonly presence: Presence) {}

  async execute({ request: r }: UpdateMyState): Promise<LobbyView> {
    const { lobbyId } = await this.states.mine(r, false);
    const target = r.targetId ?? r.playerId;
    const ran = await this.lobbies.handle(lobbyId, (s) => {
      const whose = isLive(s) ? s.players.find((p) => p.id === target) : undefined;
      if (whose) checkState({ ...whose.state, ...r.state });
      return { type: 'UpdatePlayerState', playerId: target, ...(target !== r.playerId ? { by: r.playerId } : {}), state: r.state, now: this.lobbies.now() };
    }, { projectId: r.projectId });
    this.presence.touch(r.projectId, lobbyId, r.playerId);
    return viewAfter(ran);
  }
}
