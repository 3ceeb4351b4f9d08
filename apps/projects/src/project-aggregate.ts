// The project aggregate's write path (Aggregate.handle); `await: 'readModel'` waits on this service's projection.
import { Inject, Injectable } from '@nestjs/common';
import { ProjectCommand, projectDecider, ProjectEvent, ProjectState, projectStream } from '@spawnpoint/domain';
import { Aggregate, Platform, PLATFORM } from '@spawnpoint/platform';
import { ProjectsReadModel } from './projects-read-model';

@Injectable()
export class ProjectAggregate extends Aggregate<ProjectCommand, ProjectEvent, ProjectState> {
  constructor(@Inject(PLATFORM) platform: Platform, readModel: ProjectsReadModel) {
    super(platform.store, projectDecider, projectStream, readModel);
  }
}
