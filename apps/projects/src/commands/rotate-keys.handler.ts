import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { BusCommand, sha256 } from '@spawnpoint/platform';
import { CreatedProject, RotateKeysRequest } from '@spawnpoint/proto';
import { newClientKey, newServerKey } from '../keys';
import { ProjectChanges } from '../project-changes';
import { ProjectsReadModel } from '../projects-read-model';
import { ProjectAggregate } from '../project-aggregate';

type RotatedKeys = Omit<CreatedProject, 'name' | 'plan'>;

export class RotateKeys extends BusCommand<RotateKeysRequest, RotatedKeys> {}

/** New server and client keys; the old ones stop working once the read model shows the rotation. */
@Injectable()
@CommandHandler(RotateKeys)
export class RotateKeysHandler implements ICommandHandler<RotateKeys> {
  constructor(private readonly projects: ProjectAggregate, private readonly readModel: ProjectsReadModel, private readonly changes: ProjectChanges) {}

  async execute({ request: req }: RotateKeys): Promise<RotatedKeys> {
    const serverKey = req.serverKey ?? newServerKey();
    const clientKey = req.clientKey ?? newClientKey();
    await this.projects.handle(req.projectId, {
      type: 'RotateKeys', serverKeyHash: sha256(serverKey), clientKeyHash: sha256(clientKey), now: this.readModel.now(),
    }, { projectId: req.projectId, await: 'readModel' });
    await this.changes.announce(req.projectId, 'keys');
    return { project_id: req.projectId, server_key: serverKey, client_key: clientKey };
  }
}
