// The builds read side shared by handlers: a project's build by id (404 for another project's), mapped by
// the one BuildView mapper.
import { Inject, Injectable } from '@nestjs/common';
import { notFound } from '@spawnpoint/domain';
import { Platform, PLATFORM } from '@spawnpoint/platform';
import { BuildView } from '@spawnpoint/proto';
import { toBuildView } from './build-view';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

@Injectable()
export class BuildViews {
  constructor(@Inject(PLATFORM) private readonly platform: Platform) {}

  async get(projectId: string, buildId: string): Promise<BuildView> {
    const b = UUID.test(buildId) ? await this.platform.db.build.findFirst({ where: { id: buildId, projectId, deleted: false } }) : null;
    if (!b) throw notFound('build');
    return toBuildView(b);
  }
}
