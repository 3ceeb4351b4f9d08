import { Inject, Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { BusQuery, Platform, PLATFORM } from '@spawnpoint/platform';
import { UsesBuildRequest } from '@spawnpoint/proto';
import { ACTIVE } from '../server-views';

export class UsesBuild extends BusQuery<UsesBuildRequest, { inUse: boolean }> {}

/** Whether an active server runs the build (the builds service asks before deleting it). */
@Injectable()
@QueryHandler(UsesBuild)
export class UsesBuildHandler implements IQueryHandler<UsesBuild> {
  constructor(@Inject(PLATFORM) private readonly platform: Platform) {}

  async execute({ request: req }: UsesBuild): Promise<{ inUse: boolean }> {
    const n = await this.platform.db.server.count({ where: { projectId: req.projectId, buildId: req.buildId, status: { in: ACTIVE } } });
    return { inUse: n > 0 };
  }
}
