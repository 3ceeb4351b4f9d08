import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { BusCommand } from '@spawnpoint/platform';
import { GameReadyRequest, GameServerReply } from '@spawnpoint/proto';
import { ColdStarts } from '../cold-starts';
import { GameTokens } from '../game/game-tokens';
import { ServerStates } from '../server-states';
import { ServerViews } from '../server-views';
import { ServersReadModel } from '../servers-read-model';

export class GameReady extends BusCommand<GameReadyRequest, GameServerReply> {}

/** POST /v3/game/ready: a launching server becomes running (the only way for `readiness: sdk`); repeated, nothing changes. */
@Injectable()
@CommandHandler(GameReady)
export class GameReadyHandler implements ICommandHandler<GameReady> {
  constructor(
    private readonly tokens: GameTokens, private readonly readModel: ServersReadModel, private readonly states: ServerStates,
    private readonly views: ServerViews, private readonly coldStarts: ColdStarts,
  ) {}

  async execute({ request: req }: GameReady): Promise<GameServerReply> {
    const { projectId } = await this.tokens.authenticate(req.serverId, req.tokenHash);
    const { events } = await this.states.handle(req.serverId, { type: 'ReportReady', now: this.readModel.now() }, { projectId, await: 'readModel' });
    if (events.some((e) => e.type === 'ServerRunning')) this.coldStarts.running(req.serverId);
    return { projectId, server: await this.views.get({ projectId, serverId: req.serverId }) };
  }
}
