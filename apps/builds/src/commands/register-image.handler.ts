import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { BusCommand } from '@spawnpoint/platform';
import { BuildView, RegisterImageRequest } from '@spawnpoint/proto';
import { BuildViews } from '../build-views';
import { BuildVersions } from '../build-versions';
import { BuildsReadModel } from '../builds-read-model';
import { BuildAggregate } from '../build-aggregate';

export class RegisterImage extends BusCommand<RegisterImageRequest, BuildView> {}

/** A container image build: ready at once (the cluster pulls the image). */
@Injectable()
@CommandHandler(RegisterImage)
export class RegisterImageHandler implements ICommandHandler<RegisterImage> {
  constructor(private readonly builds: BuildAggregate, private readonly readModel: BuildsReadModel, private readonly versions: BuildVersions, private readonly views: BuildViews) {}

  async execute({ request: req }: RegisterImage): Promise<BuildView> {
    const buildId = randomUUID();
    const version = await this.versions.allocate(req.projectId, req.name, buildId);
    await this.builds.handle(buildId, {
      type: 'RegisterImage', buildId, projectId: req.projectId, name: req.name, version, image: req.image, now: this.readModel.now(),
    }, { projectId: req.projectId, await: 'readModel' });
    return this.views.get(req.projectId, buildId);
  }
}
