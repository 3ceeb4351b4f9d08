import { Inject, Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { notFound, Plan } from '@spawnpoint/domain';
import { BusCommand, Platform, PLATFORM } from '@spawnpoint/platform';
import { ChangePlanRequest, ProjectAdminView } from '@spawnpoint/proto';
import { rateLimits } from '../project-views';
import { ProjectChanges } from '../project-changes';
import { ProjectsReadModel } from '../projects-read-model';
import { ProjectAggregate } from '../project-aggregate';

export class ChangePlan extends BusCommand<ChangePlanRequest, ProjectAdminView> {}

/** An operator's change of a project's plan and rate limits (admin API). */
@Injectable()
@CommandHandler(ChangePlan)
export class ChangePlanHandler implements ICommandHandler<ChangePlan> {
  constructor(private readonly projects: ProjectAggregate, private readonly readModel: ProjectsReadModel, @Inject(PLATFORM) private readonly platform: Platform, private readonly changes: ProjectChanges) {}

  async execute({ request: req }: ChangePlan): Promise<ProjectAdminView> {
    await this.projects.handle(req.projectId, {
      type: 'ChangePlan', plan: req.plan, rateLimits: req.rate_limits, now: this.readModel.now(),
    }, { projectId: req.projectId, await: 'readModel' });
    await this.changes.announce(req.projectId, 'plan');
    const p = await this.platform.db.project.findUnique({ where: { id: req.projectId } });
    if (!p) throw notFound('project');
    return {
      project_id: p.id, name: p.name, plan: p.plan as Plan, rate_limits: rateLimits(p.rateLimits),
      created_at: p.createdAt.toISOString(), updated_at: p.updatedAt.toISOString(),
    };
  }
}
