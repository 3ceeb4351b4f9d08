import { Inject, Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { rm } from 'node:fs/promises';
import { BLOBS, BlobStore, BusCommand, Platform, PLATFORM } from '@spawnpoint/platform';
import { buildArtifactBlobKey, GetBuildRequest, SUBJECTS, UsesBuildRequest } from '@spawnpoint/proto';
import { BuildProcessing } from '../build-processing';
import { BuildViews } from '../build-views';
import { BuildsReadModel } from '../builds-read-model';
import { BuildAggregate } from '../build-aggregate';

type BuildDeleted = { status: 'build_deleted'; build_id: string };

export class DeleteBuild extends BusCommand<GetBuildRequest, BuildDeleted> {}

/** Refused (409) while an active server runs the build; its artifact (blob and local directory) goes with it. */
@Injectable()
@CommandHandler(DeleteBuild)
export class DeleteBuildHandler implements ICommandHandler<DeleteBuild> {
  constructor(
    private readonly builds: BuildAggregate,
    private readonly readModel: BuildsReadModel,
    private readonly views: BuildViews,
    private readonly processing: BuildProcessing,
    @Inject(PLATFORM) private readonly platform: Platform,
    @Inject(BLOBS) private readonly blobs: BlobStore,
  ) {}

  async execute({ request: req }: DeleteBuild): Promise<BuildDeleted> {
    await this.views.get(req.projectId, req.buildId); // 404 for another project's build before anything else
    const { inUse } = await this.platform.bus.request(SUBJECTS.servers.usesBuild, { projectId: req.projectId, buildId: req.buildId } satisfies UsesBuildRequest);
    await this.builds.handle(req.buildId, { type: 'DeleteBuild', inUse, now: this.readModel.now() }, { projectId: req.projectId, await: 'readModel' });
    await this.blobs.delete(buildArtifactBlobKey(req.buildId));
    await rm(this.processing.artifactDir(req.projectId, req.buildId), { recursive: true, force: true });
    return { status: 'build_deleted', build_id: req.buildId };
  }
}
