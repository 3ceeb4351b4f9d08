import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { randomUUID } from 'node:crypto';
import { defaultSettings, projectDecider, projectStream } from '@spawnpoint/domain';
import { BusCommand, sha256 } from '@spawnpoint/platform';
import { CreatedProject, CreateProjectRequest } from '@spawnpoint/proto';
import { newClientKey, newServerKey } from '../keys';
import { ProjectsReadModel } from '../projects-read-model';

export class CreateProject extends BusCommand<CreateProjectRequest, CreatedProject> {}

/** A new project with its two keys: shown once here, stored only as hashes. */
@Injectable()
@CommandHandler(CreateProject)
export class CreateProjectHandler implements ICommandHandler<CreateProject> {
  constructor(private readonly readModel: ProjectsReadModel) {}

  async execute({ request: req }: CreateProject): Promise<CreatedProject> {
    const projectId = req.projectId ?? randomUUID();
    const serverKey = req.serverKey ?? newServerKey();
    const clientKey = req.clientKey ?? newClientKey();
    await this.readModel.command(projectDecider, projectStream(projectId), {
      type: 'CreateProject', projectId, name: req.name, plan: req.plan, serverKeyHash: sha256(serverKey), clientKeyHash: sha256(clientKey),
      settings: defaultSettings({ udpPortId: randomUUID(), tcpPortId: randomUUID() }), now: this.readModel.now(),
    }, { projectId });
    return { project_id: projectId, name: req.name, plan: req.plan, server_key: serverKey, client_key: clientKey };
  }
}
