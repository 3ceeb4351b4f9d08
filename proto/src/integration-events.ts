// The store events other services consume (through the bus's durable consumers), as contracts: what a
// consumer may rely on in `data`. The producing service's domain types (libs/domain) hold more; a
// consumer checks the part it reads with parseBusEvent(integrationEventName(e), e.data) and parks an
// event that breaks it rather than acting on a half-formed one.
import { BusEvent } from './contracts';
import { Int, Str } from './validation/fields';

/** project.ProjectSettingsUpdated / ProjectPlanChanged: lobbies drop their cached config, pools re-plan. */
@BusEvent('project.ProjectSettingsUpdated', 'project.ProjectPlanChanged')
export class ProjectChangedEvent {
  @Str() projectId!: string;
  @Str() at!: string;
}

/** build.BuildReady: a build can now be started (the project is in the event's metadata). */
@BusEvent('build.BuildReady')
export class BuildReadyEvent {
  @Str() buildId!: string;
  @Str() at!: string;
}

/** build.BuildImageRegistered / BuildDeleted: a project's startable versions changed. */
@BusEvent('build.BuildImageRegistered', 'build.BuildDeleted')
export class BuildChangedEvent {
  @Str() buildId!: string;
  @Str() projectId!: string;
  @Str() name!: string;
  @Int() version!: number;
  @Str() at!: string;
}
