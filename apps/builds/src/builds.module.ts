import { Module } from '@nestjs/common';
import { servesRoutes } from '@spawnpoint/platform';
import { BuildProcessing } from './build-processing';
import { BuildViews } from './build-views';
import { BuildsHost } from './builds.host';
import { BUILDS_HANDLERS, buildsRoutes } from './routes';

@Module({
  providers: [BuildProcessing, BuildViews, BuildsHost, ...BUILDS_HANDLERS, servesRoutes(BuildsHost, buildsRoutes)],
  exports: [BuildsHost],
})
export class BuildsModule {}
