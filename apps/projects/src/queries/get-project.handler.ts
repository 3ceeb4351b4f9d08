import { Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { BusQuery } from '@spawnpoint/platform';
import { GetProjectRequest, ProjectView } from '@spawnpoint/proto';
import { ProjectViews } from '../project-views';

export class GetProject extends BusQuery<GetProjectRequest, ProjectView> {}

/** A project with its settings (secrets included): for services only, never sent to a client as is. */
@Injectable()
@QueryHandler(GetProject)
export class GetProjectHandler implements IQueryHandler<GetProject> {
  constructor(private readonly views: ProjectViews) {}

  execute({ request }: GetProject): Promise<ProjectView> {
    return this.views.get(request.projectId);
  }
}
