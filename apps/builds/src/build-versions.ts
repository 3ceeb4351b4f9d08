// The next version of a build name, on its own stream (buildseries), so concurrent uploads of one name
// never share one. It does not wait for a read model (none shows the series); the build's own write does.
import { Inject, Injectable } from '@nestjs/common';
import { BuildSeriesCommand, buildSeriesDecider, VersionAllocated, BuildSeriesState, buildSeriesStream } from '@spawnpoint/domain';
import { Aggregate, Platform, PLATFORM } from '@spawnpoint/platform';

/** The series aggregate, keyed by its stream (`buildSeriesStream(projectId, name)`). */
@Injectable()
export class BuildVersions extends Aggregate<BuildSeriesCommand, VersionAllocated, BuildSeriesState> {
  constructor(@Inject(PLATFORM) private readonly platform: Platform) {
    super(platform.store, buildSeriesDecider, (stream) => stream);
  }

  async allocate(projectId: string, name: string, buildId: string): Promise<number> {
    const { events } = await this.handle(buildSeriesStream(projectId, name), {
      type: 'AllocateVersion', projectId, name, buildId, now: this.platform.clock().toISOString(),
    }, { projectId });
    return events[0].data.version;
  }
}
