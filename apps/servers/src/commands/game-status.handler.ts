import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { BusCommand } from '@spawnpoint/platform';
import { GameServerReply, GameStatusRequest } from '@spawnpoint/proto';
import { GameTokens } from '../game/game-tokens';
import { ServerStates } from '../server-states';
import { ServerViews } from '../server-views';
import { ServersReadModel } from '../servers-read-model';

export class GameStatus extends BusCommand<GameStatusRequest, GameServerReply> {}

/** PUT /v3/game/status: the game's player count and/or health, shown as `game` on the server. */
@Injectable()
@CommandHandler(GameStatus)
export class GameStatusHandler implements ICommandHandler<GameStatus> {
  constructor(private readonly tokens: GameTokens, private readonly readModel: ServersReadModel, private readonly states: ServerStates, private readonly views: ServerViews) {}

  async execute({ request: req }: GameStatus): Promise<GameServerReply> {
    const { projectId } = await this.tokens.authenticate(req.serverId, req.tokenHash);
    const { players, health, message, resettable } = req.body;
    await this.states.handle(req.serverId, {
      type: 'ReportGameStatus', now: this.readModel.now(),
      ...(players !== undefined ? { players } : {}), ...(health !== undefined ? { health } : {}), ...(message !== undefined ? { message } : {}),
      ...(resettable !== undefined ? { resettable } : {}),
    }, { projectId, await: 'readModel' });
    return { projectId, server: await this.views.get({ projectId, serverId: req.serverId }) };
  }
}
