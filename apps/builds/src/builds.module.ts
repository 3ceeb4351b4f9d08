import { Module } from '@nestjs/common';
import { servesRoutes } from '@spawnpoint/platform';
import { BuildProcessing } from './build-processing';
import { BuildVersions } from './build-versions';
import { BuildViews } from './build-views';
import { BuildsReadModel } from './builds-read-model';
import { BuildsHost } from './builds.host';
import { BUILDS_HANDLERS, buildsRoutes } from './routes';
import { BuildAggregate } from './build-aggregate';

@Module({
  providers: [BuildAggregate, BuildsReadModel, BuildProcessing, BuildVersions, BuildViews, BuildsHost, ...BUILDS_HANDLERS, servesRoutes(BuildsHost, buildsRoutes)],
  exports: [BuildsHost],
})
export class BuildsModule {}
