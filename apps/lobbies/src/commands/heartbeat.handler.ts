import { Inject, Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { BusCommand } from '@spawnpoint/platform';
import { PlayerLobbyRequest } from '@spawnpoint/proto';
import { LobbyStates } from '../lobby-states';
import { Presence } from '../presence';

export class Heartbeat extends BusCommand<PlayerLobbyRequest, Record<string, never>> {}

/** A member's sign of life: presence only (nothing stored), shared with the other replicas. */
@Injectable()
@CommandHandler(Heartbeat)
export class HeartbeatHandler implements ICommandHandler<Heartbeat> {
  constructor(private readonly states: LobbyStates, @Inject(Presence) private readonly presence: Presence) {}

  async execute({ request: r }: Heartbeat): Promise<Record<string, never>> {
    const { lobbyId } = await this.states.mine(r);
    this.presence.touch(r.projectId, lobbyId, r.playerId);
    return {};
  }
}
