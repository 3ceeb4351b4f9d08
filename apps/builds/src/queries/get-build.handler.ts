import { Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { BusQuery } from '@spawnpoint/platform';
import { BuildView, GetBuildRequest } from '@spawnpoint/proto';
import { BuildViews } from '../build-views';

export class GetBuild extends BusQuery<GetBuildRequest, BuildView> {}

@Injectable()
@QueryHandler(GetBuild)
export class GetBuildHandler implements IQueryHandler<GetBuild> {
  constructor(private readonly views: BuildViews) {}

  execute({ request }: GetBuild): Promise<BuildView> {
    return this.views.get(request.projectId, request.buildId);
  }
}
