import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { rm } from 'node:fs/promises';
import { buildDecider, buildStream, forbidden } from '@spawnpoint/domain';
import { BusCommand, sha256 } from '@spawnpoint/platform';
import { BuildView, ReceiveUploadRequest } from '@spawnpoint/proto';
import { BuildProcessing } from '../build-processing';
import { BuildViews, UUID } from '../build-views';
import { BuildsReadModel } from '../builds-read-model';

export class ReceiveUpload extends BusCommand<ReceiveUploadRequest, BuildView> {}

/** The ZIP the gateway received on an upload URL: the token is spent, processing starts in the background. */
@Injectable()
@CommandHandler(ReceiveUpload)
export class ReceiveUploadHandler implements ICommandHandler<ReceiveUpload> {
  constructor(private readonly readModel: BuildsReadModel, private readonly processing: BuildProcessing, private readonly views: BuildViews) {}

  async execute({ request: req }: ReceiveUpload): Promise<BuildView> {
    const buildId = req.token.split('.')[0];
    try {
      if (!UUID.test(buildId)) throw forbidden('upload URL is invalid or was already used');
      const { state } = await this.readModel.command(buildDecider, buildStream(buildId), {
        type: 'ReceiveUpload', tokenHash: sha256(req.token), sizeBytes: req.sizeBytes, uploadPath: req.path, now: this.readModel.now(),
      });
      if (state.status !== 'processing') throw new Error('unreachable: build not processing after upload');
      this.processing.start(state.projectId, buildId, req.path, state.executablePath);
      return await this.views.get(state.projectId, buildId);
    } catch (err) {
      await rm(req.path, { force: true });
      throw err;
    }
  }
}
