import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { BusCommand, randomBase62, sha256 } from '@spawnpoint/platform';
import { RequestUploadRequest, UploadTicket } from '@spawnpoint/proto';
import { BuildVersions } from '../build-versions';
import { BuildsReadModel } from '../builds-read-model';
import { UPLOAD_URL_TTL_MS } from '../builds.host';
import { BuildAggregate } from '../build-aggregate';

export class RequestUpload extends BusCommand<RequestUploadRequest, UploadTicket> {}

/** A new build version awaiting its ZIP: a single-use upload token (stored as a hash) valid for an hour. */
@Injectable()
@CommandHandler(RequestUpload)
export class RequestUploadHandler implements ICommandHandler<RequestUpload> {
  constructor(private readonly builds: BuildAggregate, private readonly readModel: BuildsReadModel, private readonly versions: BuildVersions) {}

  async execute({ request: req }: RequestUpload): Promise<UploadTicket> {
    const buildId = randomUUID();
    const version = await this.versions.allocate(req.projectId, req.name, buildId);
    const token = `${buildId}.${randomBase62(40)}`;
    const now = new Date(this.readModel.now());
    const expiresAt = new Date(now.getTime() + UPLOAD_URL_TTL_MS).toISOString();
    await this.builds.handle(buildId, {
      type: 'RequestUpload', buildId, projectId: req.projectId, name: req.name, version, tokenHash: sha256(token), expiresAt,
      executablePath: req.executablePath ?? null, now: now.toISOString(),
    }, { projectId: req.projectId, await: 'readModel' });
    return { build_id: buildId, name: req.name, version, token, expires_at: expiresAt };
  }
}
