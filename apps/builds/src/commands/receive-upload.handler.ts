import { Inject, Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { forbidden } from '@spawnpoint/domain';
import { BLOBS, BlobStore, BusCommand, sha256 } from '@spawnpoint/platform';
import { BuildView, ReceiveUploadRequest } from '@spawnpoint/proto';
import { BuildProcessing } from '../build-processing';
import { BuildViews, UUID } from '../build-views';
import { BuildsReadModel } from '../builds-read-model';
import { BuildAggregate } from '../build-aggregate';

export class ReceiveUpload extends BusCommand<ReceiveUploadRequest, BuildView> {}

/**
 * The ZIP the gateway received on an upload URL, in blob `blobKey`: the token is spent, processing starts
 * in the background. The build keeps the blob key (as its uploadPath) so an interrupted processing resumes.
 */
@Injectable()
@CommandHandler(ReceiveUpload)
export class ReceiveUploadHandler implements ICommandHandler<ReceiveUpload> {
  constructor(
    private readonly builds: BuildAggregate,
    private readonly readModel: BuildsReadModel,
    private readonly processing: BuildProcessing,
    private readonly views: BuildViews,
    @Inject(BLOBS) private readonly blobs: BlobStore,
  ) {}

  async execute({ request: req }: ReceiveUpload): Promise<BuildView> {
    const buildId = req.token.split('.')[0];
    try {
      if (!UUID.test(buildId)) throw forbidden('upload URL is invalid or was already used');
      const { state } = await this.builds.handle(buildId, {
        type: 'ReceiveUpload', tokenHash: sha256(req.token), sizeBytes: req.sizeBytes, uploadPath: req.blobKey, now: this.readModel.now(),
      }, { await: 'readModel' });
      if (state.status !== 'processing') throw new Error('unreachable: build not processing after upload');
      this.processing.start(state.projectId, buildId, req.blobKey, state.executablePath);
      return await this.views.get(state.projectId, buildId);
    } catch (err) {
      await this.blobs.delete(req.blobKey);
      throw err;
    }
  }
}
