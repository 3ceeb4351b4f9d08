import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { buildDecider, buildStream } from '@spawnpoint/domain';
import { BusCommand } from '@spawnpoint/platform';
import { BuildView, RegisterImageRequest } from '@spawnpoint/proto';
import { BuildViews } from '../build-views';
import { BuildsHost } from '../builds.host';

export class RegisterImage extends BusCommand<RegisterImageRequest, BuildView> {}

/** A container image build: ready at once (the cluster pulls the image). */
@Injectable()
@CommandHandler(RegisterImage)
export class RegisterImageHandler implements ICommandHandler<RegisterImage> {
  constructor(private readonly host: BuildsHost, private readonly views: BuildViews) {}

  async execute({ request: req }: RegisterImage): Promise<BuildView> {
    const buildId = randomUUID();
    const version = await this.host.allocateVersion(req.projectId, req.name, buildId);
    await this.host.command(buildDecider, buildStream(buildId), {
      type: 'RegisterImage', buildId, projectId: req.projectId, name: req.name, version, image: req.image, now: this.host.now(),
    }, { projectId: req.projectId });
    return this.views.get(req.projectId, buildId);
  }
}
