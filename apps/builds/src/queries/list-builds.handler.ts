import { Inject, Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { BusQuery, Platform, PLATFORM } from '@spawnpoint/platform';
import { BuildView, ListBuildsRequest } from '@spawnpoint/proto';
import { toBuildView } from '../build-view';

type BuildList = { builds: BuildView[] };

export class ListBuilds extends BusQuery<ListBuildsRequest, BuildList> {}

/** A project's builds, newest first, optionally of one name. */
@Injectable()
@QueryHandler(ListBuilds)
export class ListBuildsHandler implements IQueryHandler<ListBuilds> {
  constructor(@Inject(PLATFORM) private readonly platform: Platform) {}

  async execute({ request: req }: ListBuilds): Promise<BuildList> {
    const rows = await this.platform.db.build.findMany({
      where: { projectId: req.projectId, deleted: false, ...(req.name ? { name: req.name } : {}) },
      orderBy: [{ createdAt: 'desc' }, { version: 'desc' }],
      take: 500,
    });
    return { builds: rows.map(toBuildView) };
  }
}
