import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { BusCommand } from '@spawnpoint/platform';
import { GameServerReply, GameStopRequest } from '@spawnpoint/proto';
import { GameTokens } from '../game/game-tokens';
import { ServerStates } from '../server-states';
import { ServerViews } from '../server-views';
import { ServersReadModel } from '../servers-read-model';

export class GameStop extends BusCommand<GameStopRequest, GameServerReply> {}

/**
 * POST /v3/game/stop: the game asks to be stopped, as a manual stop would (reason SHUTDOWN_SIGNAL: the
 * machine gets SIGTERM, then SIGKILL after the grace period). The token dies with the answer.
 */
@Injectable()
@CommandHandler(GameStop)
export class GameStopHandler implements ICommandHandler<GameStop> {
  constructor(private readonly tokens: GameTokens, private readonly readModel: ServersReadModel, private readonly states: ServerStates, private readonly views: ServerViews) {}

  async execute({ request: req }: GameStop): Promise<GameServerReply> {
    const { projectId } = await this.tokens.authenticate(req.serverId, req.tokenHash);
    await this.states.handle(req.serverId, { type: 'StopServer', reason: 'SHUTDOWN_SIGNAL', now: this.readModel.now() }, { projectId, await: 'readModel' });
    return { projectId, server: await this.views.get({ projectId, serverId: req.serverId }) };
  }
}
