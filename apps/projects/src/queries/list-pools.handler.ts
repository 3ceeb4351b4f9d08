import { Inject, Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { BusQuery, Platform, PLATFORM } from '@spawnpoint/platform';
import { ProjectView } from '@spawnpoint/proto';
import { ProjectViews } from '../project-views';

export class ListPools extends BusQuery<Record<string, never>, ProjectView[]> {}

/** Every project that has a pool_config (the servers service keeps their pools). */
@Injectable()
@QueryHandler(ListPools)
export class ListPoolsHandler implements IQueryHandler<ListPools> {
  constructor(@Inject(PLATFORM) private readonly platform: Platform, private readonly views: ProjectViews) {}

  async execute(): Promise<ProjectView[]> {
    const rows = await this.platform.db.$queryRaw<{ id: string }[]>`SELECT id FROM projects WHERE settings->'pool_config' IS NOT NULL AND settings->>'pool_config' <> 'null'`;
    return Promise.all(rows.map((r) => this.views.get(r.id)));
  }
}
