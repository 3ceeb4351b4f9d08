import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { defaultSettings } from '@spawnpoint/domain';
import { BusCommand, sha256 } from '@spawnpoint/platform';
import { CreatedProject, CreateProjectRequest } from '@spawnpoint/proto';
import { newClientKey, newServerKey } from '../keys';
import { ProjectsReadModel } from '../projects-read-model';
import { ProjectAggregate } from '../project-aggregate';

export class CreateProject extends BusCommand<CreateProjectRequest, CreatedProject> {}

/** A new project with its two keys: shown once here, stored only as hashes. */
@Injectable()
@CommandHandler(CreateProject)
export class CreateProjectHandler implements ICommandHandler<CreateProject> {
  constructor(private readonly projects: ProjectAggregate, private readonly readModel: ProjectsReadModel) {}

  async execute({ request: req }: CreateProject): Promise<CreatedProject> {
    const projectId = req.projectId ?? randomUUID();
    const serverKey = req.serverKey ?? newServerKey();
    const clientKey = req.clientKey ?? newClientKey();
    await this.projects.handle(projectId, {
      type: 'CreateProject', projectId, name: req.name, plan: req.plan, serverKeyHash: sha256(serverKey), clientKeyHash: sha256(clientKey),
      settings: defaultSettings({ udpPortId: randomUUID(), tcpPortId: randomUUID() }), now: this.readModel.now(),
    }, { projectId, await: 'readModel' });
    return { project_id: projectId, name: req.name, plan: req.plan, server_key: serverKey, client_key: clientKey };
  }
}
