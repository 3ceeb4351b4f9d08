import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { BusCommand } from '@spawnpoint/platform';
import { ReportServerStateRequest, ServerView } from '@spawnpoint/proto';
import { ColdStarts } from '../cold-starts';
import { ServerStates } from '../server-states';
import { ServerViews } from '../server-views';
import { ServersReadModel } from '../servers-read-model';

export class ReportServerState extends BusCommand<ReportServerStateRequest, ServerView> {}

/**
 * PUT /v2/servers/{id}/update with X-Server-Status: a server reporting its own state with the project key.
 * `running` takes the game API's ready path (a launching server runs, readiness sdk too), `stopped` the stop
 * path (again: no error), `launching` changes nothing.
 */
@Injectable()
@CommandHandler(ReportServerState)
export class ReportServerStateHandler implements ICommandHandler<ReportServerState> {
  constructor(
    private readonly readModel: ServersReadModel, private readonly states: ServerStates, private readonly views: ServerViews, private readonly coldStarts: ColdStarts,
  ) {}

  async execute({ request: req }: ReportServerState): Promise<ServerView> {
    await this.views.get(req); // 404 for another project's server
    const { events } = await this.states.handle(req.serverId, { type: 'ReportState', state: req.state, now: this.readModel.now() }, { projectId: req.projectId, await: 'readModel' });
    if (events.some((e) => e.type === 'ServerRunning')) this.coldStarts.running(req.serverId);
    return this.views.get(req);
  }
}
