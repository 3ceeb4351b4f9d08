import { Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { BusQuery } from '@spawnpoint/platform';
import { GetProjectRequest, SettingsView } from '@spawnpoint/proto';
import { ProjectViews } from '../project-views';

export class GetSettings extends BusQuery<GetProjectRequest, SettingsView> {}

/** The project's settings as its keys see them (auth_config secrets redacted). */
@Injectable()
@QueryHandler(GetSettings)
export class GetSettingsHandler implements IQueryHandler<GetSettings> {
  constructor(private readonly views: ProjectViews) {}

  execute({ request }: GetSettings): Promise<SettingsView> {
    return this.views.settings(request.projectId);
  }
}
