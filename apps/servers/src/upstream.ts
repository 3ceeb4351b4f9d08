// What the servers service asks the other services over the bus: a project, a build to run.
import { Inject, Injectable } from '@nestjs/common';
import { invalid } from '@spawnpoint/domain';
import { Platform, PLATFORM } from '@spawnpoint/platform';
import { ProjectView, ResolvedBuild, SUBJECTS } from '@spawnpoint/proto';
import type { GameRuntime } from '@spawnpoint/runtime';
import { RUNTIME } from './runtime';

@Injectable()
export class Upstream {
  constructor(@Inject(PLATFORM) private readonly platform: Platform, @Inject(RUNTIME) private readonly runtime: GameRuntime) {}

  project(projectId: string): Promise<ProjectView> {
    return this.platform.bus.request(SUBJECTS.projects.get, { projectId });
  }

  async resolveBuild(projectId: string, name: string, version: number | null): Promise<ResolvedBuild> {
    const build = await this.platform.bus.request(SUBJECTS.builds.resolve, { projectId, name, version });
    if (build.kind === 'image' && this.runtime.kind === 'process') {
      throw invalid('this deployment runs game servers as local processes and cannot start container image builds', [
        { loc: ['body', 'version_tag'], msg: 'build is a container image; the process runtime runs ZIP builds only', type: 'value_error' },
      ]);
    }
    return build;
  }
}
