import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { completeSettingsPatch, SettingsPatchInput } from '@spawnpoint/domain';
import { BusCommand } from '@spawnpoint/platform';
import { SettingsView, UpdateSettingsRequest } from '@spawnpoint/proto';
import { ProjectChanges } from '../project-changes';
import { ProjectViews } from '../project-views';
import { ProjectsReadModel } from '../projects-read-model';
import { ProjectAggregate } from '../project-aggregate';

export class UpdateSettings extends BusCommand<UpdateSettingsRequest, SettingsView> {}

/** Each top-level field given replaces the stored one whole, its defaults filled in; the answer is the stored settings (redacted). */
@Injectable()
@CommandHandler(UpdateSettings)
export class UpdateSettingsHandler implements ICommandHandler<UpdateSettings> {
  constructor(private readonly projects: ProjectAggregate, private readonly readModel: ProjectsReadModel, private readonly views: ProjectViews, private readonly changes: ProjectChanges) {}

  async execute({ request: req }: UpdateSettings): Promise<SettingsView> {
    const patch = completeSettingsPatch(req.patch as SettingsPatchInput, randomUUID);
    // Lobby configs keep their ids across a replace; the decider takes new ones from here where it needs them.
    const newIds = patch.lobby_configs?.map(() => randomUUID());
    await this.projects.handle(req.projectId, { type: 'UpdateSettings', patch, newIds, now: this.readModel.now() }, { projectId: req.projectId, await: 'readModel' });
    await this.changes.announce(req.projectId, 'settings');
    return this.views.settings(req.projectId);
  }
}
