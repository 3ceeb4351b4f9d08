import { Module } from '@nestjs/common';
import { servesRoutes } from '@spawnpoint/platform';
import { ProjectViews } from './project-views';
import { ProjectsHost } from './projects.host';
import { PROJECTS_HANDLERS, projectsRoutes } from './routes';

@Module({
  providers: [ProjectViews, ProjectsHost, ...PROJECTS_HANDLERS, servesRoutes(ProjectsHost, projectsRoutes)],
  exports: [ProjectsHost],
})
export class ProjectsModule {}
