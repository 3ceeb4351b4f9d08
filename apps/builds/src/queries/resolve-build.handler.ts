import { Inject, Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { notFound } from '@spawnpoint/domain';
import { BusQuery, Platform, PLATFORM } from '@spawnpoint/platform';
import { ResolveBuildRequest, ResolvedBuild } from '@spawnpoint/proto';

export class ResolveBuild extends BusQuery<ResolveBuildRequest, ResolvedBuild> {}

/**
 * The latest ready build under the name, or the pinned version (what a server start runs). No directory:
 * the servers service unpacks a zip build's blob into its own data dir when it is not there yet.
 */
@Injectable()
@QueryHandler(ResolveBuild)
export class ResolveBuildHandler implements IQueryHandler<ResolveBuild> {
  constructor(@Inject(PLATFORM) private readonly platform: Platform) {}

  async execute({ request: req }: ResolveBuild): Promise<ResolvedBuild> {
    const b = await this.platform.db.build.findFirst({
      where: { projectId: req.projectId, name: req.name, status: 'ready', deleted: false, ...(req.version != null ? { version: req.version } : {}) },
      orderBy: { version: 'desc' },
    });
    if (!b) {
      const which = req.version != null ? `version ${req.version} of "${req.name}"` : `"${req.name}"`;
      throw notFound(`ready build ${which}`);
    }
    return {
      buildId: b.id, name: b.name, version: b.version, kind: b.kind as ResolvedBuild['kind'], executablePath: b.executablePath, image: b.image,
    };
  }
}
