import { Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { BusQuery } from '@spawnpoint/platform';
import { GetProjectRequest, ProjectAuthConfig } from '@spawnpoint/proto';
import { ProjectViews } from '../project-views';

export class GetAuthConfig extends BusQuery<GetProjectRequest, ProjectAuthConfig> {}

/** The stored auth_config, secrets included: only the gateway asks, to verify player tokens (never returned to clients). */
@Injectable()
@QueryHandler(GetAuthConfig)
export class GetAuthConfigHandler implements IQueryHandler<GetAuthConfig> {
  constructor(private readonly views: ProjectViews) {}

  async execute({ request }: GetAuthConfig): Promise<ProjectAuthConfig> {
    return (await this.views.get(request.projectId)).settings.auth_config;
  }
}
