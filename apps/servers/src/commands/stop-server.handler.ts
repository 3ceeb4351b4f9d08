import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { invalid, STOP_REASONS, StopReason } from '@spawnpoint/domain';
import { BusCommand } from '@spawnpoint/platform';
import { ServerView, StopServerRequest } from '@spawnpoint/proto';
import { ServerStates } from '../server-states';
import { ServerViews } from '../server-views';
import { ServersReadModel } from '../servers-read-model';

export class StopServer extends BusCommand<StopServerRequest, ServerView> {}

/** Records the stop and answers; the machine is torn down once the stop is in the read model (Machines). */
@Injectable()
@CommandHandler(StopServer)
export class StopServerHandler implements ICommandHandler<StopServer> {
  constructor(private readonly readModel: ServersReadModel, private readonly states: ServerStates, private readonly views: ServerViews) {}

  async execute({ request: req }: StopServer): Promise<ServerView> {
    await this.views.get(req); // 404 for another project's server
    const reason = (req.reason ?? 'SHUTDOWN_SIGNAL') as StopReason;
    if (!STOP_REASONS.includes(reason)) throw invalid('invalid shutdown_reason', ['query', 'shutdown_reason'], 'enum');
    await this.states.handle(req.serverId, { type: 'StopServer', reason, now: this.readModel.now() }, { projectId: req.projectId, await: 'readModel' });
    return this.views.get(req);
  }
}
