import { Inject, Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { conflict, notFound } from '@spawnpoint/domain';
import { BLOBS, BlobStore, BusQuery, Platform, PLATFORM } from '@spawnpoint/platform';
import { ArtifactBlob, ArtifactBlobRequest, buildArtifactBlobKey } from '@spawnpoint/proto';
import { UUID } from '../build-views';

export class GetArtifactBlob extends BusQuery<ArtifactBlobRequest, ArtifactBlob> {}

/**
 * The blob holding a ready zip build as a tar.gz, for the signed artifact download (the gateway streams
 * it). No project check: the caller has verified a signature scoped to this build id. Unknown or deleted:
 * 404; image build or a build that is not ready: 409.
 */
@Injectable()
@QueryHandler(GetArtifactBlob)
export class GetArtifactBlobHandler implements IQueryHandler<GetArtifactBlob> {
  constructor(@Inject(PLATFORM) private readonly platform: Platform, @Inject(BLOBS) private readonly blobs: BlobStore) {}

  async execute({ request: req }: GetArtifactBlob): Promise<ArtifactBlob> {
    const b = UUID.test(req.buildId) ? await this.platform.db.build.findFirst({ where: { id: req.buildId, deleted: false } }) : null;
    if (!b) throw notFound('build');
    if (b.kind !== 'zip') throw conflict('build is a container image build: it has no artifact to download');
    if (b.status !== 'ready') throw conflict(`build is ${b.status}, not ready`);
    const blobKey = buildArtifactBlobKey(b.id);
    if (!(await this.blobs.head(blobKey))) throw notFound('build');
    return { buildId: b.id, blobKey };
  }
}
