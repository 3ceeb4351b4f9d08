import { Module } from '@nestjs/common';
import { servesRoutes } from '@spawnpoint/platform';
import { ProjectChanges } from './project-changes';
import { ProjectViews } from './project-views';
import { ProjectsReadModel } from './projects-read-model';
import { ProjectsHost } from './projects.host';
import { PROJECTS_HANDLERS, projectsRoutes } from './routes';
import { ProjectAggregate } from './project-aggregate';

@Module({
  providers: [ProjectAggregate, ProjectsReadModel, ProjectViews, ProjectChanges, ProjectsHost, ...PROJECTS_HANDLERS, servesRoutes(ProjectsHost, projectsRoutes)],
  exports: [ProjectsHost],
})
export class ProjectsModule {}
