import { Inject, Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { existsSync } from 'node:fs';
import { conflict, notFound } from '@spawnpoint/domain';
import { BusQuery, Platform, PLATFORM } from '@spawnpoint/platform';
import { ArtifactPath, ArtifactPathRequest } from '@spawnpoint/proto';
import { BuildProcessing } from '../build-processing';
import { UUID } from '../build-views';

export class GetArtifactPath extends BusQuery<ArtifactPathRequest, ArtifactPath> {}

/**
 * The unpacked directory of a ready zip build, for the signed artifact download. No project check: the
 * caller has verified a signature scoped to this build id. Unknown or deleted: 404; image build or a
 * build that is not ready: 409.
 */
@Injectable()
@QueryHandler(GetArtifactPath)
export class GetArtifactPathHandler implements IQueryHandler<GetArtifactPath> {
  constructor(@Inject(PLATFORM) private readonly platform: Platform, private readonly processing: BuildProcessing) {}

  async execute({ request: req }: GetArtifactPath): Promise<ArtifactPath> {
    const b = UUID.test(req.buildId) ? await this.platform.db.build.findFirst({ where: { id: req.buildId, deleted: false } }) : null;
    if (!b) throw notFound('build');
    if (b.kind !== 'zip') throw conflict('build is a container image build: it has no artifact to download');
    if (b.status !== 'ready') throw conflict(`build is ${b.status}, not ready`);
    const dir = this.processing.artifactDir(b.projectId, b.id);
    if (!existsSync(dir)) throw notFound('build');
    return { buildId: b.id, dir };
  }
}
