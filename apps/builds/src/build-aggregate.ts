// The build aggregate's write path (Aggregate.handle); `await: 'readModel'` waits on this service's projection.
import { Inject, Injectable } from '@nestjs/common';
import { BuildCommand, buildDecider, BuildEvent, BuildState, buildStream } from '@spawnpoint/domain';
import { Aggregate, Platform, PLATFORM } from '@spawnpoint/platform';
import { BuildsReadModel } from './builds-read-model';

@Injectable()
export class BuildAggregate extends Aggregate<BuildCommand, BuildEvent, BuildState> {
  constructor(@Inject(PLATFORM) platform: Platform, readModel: BuildsReadModel) {
    super(platform.store, buildDecider, buildStream, readModel);
  }
}
