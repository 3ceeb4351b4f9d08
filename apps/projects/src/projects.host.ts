// The projects service: the Project aggregate (settings, keys as hashes, plan and limits) and the key
// lookup the gateway authenticates with. This class runs its read model and relay; each use case is a
// handler in commands/ or queries/, reached over the bus by the routes in routes.ts.
import { Inject, Injectable } from '@nestjs/common';
import { Platform, PLATFORM, ServiceHost } from '@spawnpoint/platform';
import { ProjectsReadModel } from './projects-read-model';
import { projectsProjection } from './projects.projection';

@Injectable()
export class ProjectsHost extends ServiceHost {
  constructor(@Inject(PLATFORM) platform: Platform, readModel: ProjectsReadModel) {
    super(platform, readModel, 'projects', ['project']);
  }

  protected readModels() {
    return [projectsProjection];
  }
}
