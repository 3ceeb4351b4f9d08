import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { BusCommand } from '@spawnpoint/platform';
import { ServerView, UpdateServerRequest } from '@spawnpoint/proto';
import { ServerStates } from '../server-states';
import { ServerViews } from '../server-views';
import { ServersReadModel } from '../servers-read-model';

export class UpdateServer extends BusCommand<UpdateServerRequest, ServerView> {}

/** Replaces the server's custom_data (409 once stopped); the answer shows it. */
@Injectable()
@CommandHandler(UpdateServer)
export class UpdateServerHandler implements ICommandHandler<UpdateServer> {
  constructor(private readonly readModel: ServersReadModel, private readonly states: ServerStates, private readonly views: ServerViews) {}

  async execute({ request: req }: UpdateServer): Promise<ServerView> {
    await this.views.get(req); // 404 for another project's server
    await this.states.handle(req.serverId, { type: 'UpdateCustomData', customData: req.customData, now: this.readModel.now() }, { projectId: req.projectId, await: 'readModel' });
    return this.views.get(req);
  }
}
