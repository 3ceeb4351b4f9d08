// The next version of a build name, on its own stream (buildseries), so concurrent uploads of one name
// never share one. It does not wait for a read model (none shows the series); the build's own write does.
import { Inject, Injectable } from '@nestjs/common';
import { buildSeriesDecider, buildSeriesStream } from '@spawnpoint/domain';
import { execute, Platform, PLATFORM } from '@spawnpoint/platform';

@Injectable()
export class BuildVersions {
  constructor(@Inject(PLATFORM) private readonly platform: Platform) {}

  async allocate(projectId: string, name: string, buildId: string): Promise<number> {
    const { events } = await execute(this.platform.store, buildSeriesDecider, buildSeriesStream(projectId, name), {
      type: 'AllocateVersion', projectId, name, buildId, now: this.platform.clock().toISOString(),
    }, { projectId });
    return events[0].data.version;
  }
}
