import { Inject, Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { BusQuery, Platform, PLATFORM } from '@spawnpoint/platform';
import { BuildList, ListBuildsRequest } from '@spawnpoint/proto';
import { toBuildView } from '../build-view';

export class ListBuilds extends BusQuery<ListBuildsRequest, BuildList> {}

/** A page of a project's builds, newest first, optionally of one name, with the total over all pages. */
@Injectable()
@QueryHandler(ListBuilds)
export class ListBuildsHandler implements IQueryHandler<ListBuilds> {
  constructor(@Inject(PLATFORM) private readonly platform: Platform) {}

  async execute({ request: req }: ListBuilds): Promise<BuildList> {
    const where = { projectId: req.projectId, deleted: false, ...(req.name ? { name: req.name } : {}) };
    // One snapshot for the page and its total, so has_more agrees with the rows.
    const [rows, total] = await this.platform.db.$transaction([
      this.platform.db.build.findMany({ where, orderBy: [{ createdAt: 'desc' }, { version: 'desc' }, { id: 'asc' }], skip: req.offset, take: req.limit }),
      this.platform.db.build.count({ where }),
    ], { isolationLevel: 'RepeatableRead' });
    return { builds: rows.map(toBuildView), total, limit: req.limit, offset: req.offset, has_more: req.offset + rows.length < total };
  }
}
