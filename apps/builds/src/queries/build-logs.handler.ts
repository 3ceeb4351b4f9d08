import { Inject, Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { buildStream } from '@spawnpoint/domain';
import { BusQuery, Platform, PLATFORM } from '@spawnpoint/platform';
import { BuildLogs, BuildLogsRequest } from '@spawnpoint/proto';
import { BuildViews } from '../build-views';
import { BuildsReadModel } from '../builds-read-model';

export class GetBuildLogs extends BusQuery<BuildLogsRequest, BuildLogs> {}

/** A build's logs, oldest first; 404 for an unknown or deleted build, or another project's. */
@Injectable()
@QueryHandler(GetBuildLogs)
export class GetBuildLogsHandler implements IQueryHandler<GetBuildLogs> {
  constructor(private readonly views: BuildViews, private readonly readModel: BuildsReadModel, @Inject(PLATFORM) private readonly platform: Platform) {}

  async execute({ request: req }: GetBuildLogs): Promise<BuildLogs> {
    // Processing appends without waiting for the read models: the logs show every event before the request.
    await this.readModel.waitForHead(buildStream(req.buildId));
    await this.views.get(req.projectId, req.buildId);
    const rows = await this.platform.db.buildLogLine.findMany({ where: { buildId: req.buildId }, orderBy: [{ revision: 'asc' }, { line: 'asc' }] });
    return { build_id: req.buildId, logs: rows.map((r) => ({ timestamp: r.at.toISOString(), message: r.message, level: r.level as BuildLogs['logs'][number]['level'] })) };
  }
}
