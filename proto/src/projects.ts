// Projects: the admin HTTP inputs, the bus requests to the projects service and its replies.
import { PLANS } from '@spawnpoint/domain';
import type { Plan, ProjectSettings, RateLimits as RateLimitsShape } from './shared';
import { SUBJECTS } from './subjects';
import { SettingsPatch } from './http/settings';
import { BusEvent, BusRequest } from './contracts';
import { Bool, Enum, Int, Json, Nested, Str } from './validation/fields';

export { REDACTED_SECRET } from './redacted';
const P = SUBJECTS.projects;

export class RateLimitsInput {
  @Int({ min: 1, max: 1_000_000 }) read_per_second!: number;
  @Int({ min: 1, max: 1_000_000 }) write_per_second!: number;
  @Int({ min: 1, max: 1_000_000 }) player_per_second!: number;
}
export class CreateProjectBody { @Str({ min: 1, max: 100 }) name!: string; @Enum(PLANS, { optional: true }) plan?: Plan }
export class ProjectIdParams { @Str({ min: 1, max: 64 }) id!: string }
export class PatchProjectBody {
  @Enum(PLANS, { optional: true }) plan?: Plan;
  @Nested(() => RateLimitsInput, { optional: true, nullable: true }) rate_limits?: RateLimitsShape | null;
}

@BusRequest(P.create)
export class CreateProjectRequest {
  @Str() name!: string;
  @Enum(PLANS) plan!: Plan;
  @Str({ optional: true }) serverKey?: string;
  @Str({ optional: true }) clientKey?: string;
  @Str({ optional: true }) projectId?: string;
}
export class CreatedProject { @Str() project_id!: string; @Str() name!: string; @Str() plan!: Plan; @Str() server_key!: string; @Str() client_key!: string }
export class RotatedKeys { @Str() project_id!: string; @Str() server_key!: string; @Str() client_key!: string }
@BusRequest(P.rotateKeys)
export class RotateKeysRequest { @Str() projectId!: string; @Str({ optional: true }) serverKey?: string; @Str({ optional: true }) clientKey?: string }
@BusRequest(P.changePlan)
export class ChangePlanRequest {
  @Str() projectId!: string;
  @Enum(PLANS, { optional: true }) plan?: Plan;
  @Json({ optional: true, nullable: true }) rate_limits?: RateLimitsShape | null;
}
export class ProjectAdminView {
  @Str() project_id!: string; @Str() name!: string; @Str() plan!: Plan;
  @Nested(() => RateLimitsInput) rate_limits!: RateLimitsShape;
  @Str() created_at!: string; @Str() updated_at!: string;
}

@BusRequest(P.authenticate)
export class AuthenticateRequest { @Str() keyHash!: string }
/** Who an api-key is: null when unknown. */
export class Principal {
  @Str() projectId!: string;
  @Enum(['server', 'client']) kind!: 'server' | 'client';
  @Str() plan!: Plan;
  @Json() rateLimits!: RateLimitsShape;
  @Bool() clientKeyServerControl!: boolean;
}

@BusRequest(P.get, P.getSettings, P.authConfig)
export class GetProjectRequest { @Str() projectId!: string }
/** projects.listPools: no fields. */
@BusRequest(P.listPools)
export class ListPoolsRequest {}
export class ProjectView {
  @Str() projectId!: string; @Str() name!: string; @Str() plan!: Plan;
  @Json() settings!: ProjectSettings;
  @Json() rateLimits!: RateLimitsShape;
}

export type SettingsView = ProjectSettings & { updated_at: string };

/** The patch as the HTTP body defines it (SettingsPatch); the projects service fills in its defaults. */
@BusRequest(P.updateSettings)
export class UpdateSettingsRequest { @Str() projectId!: string; @Nested(() => SettingsPatch) patch!: SettingsPatch }

/** projects.authConfig answers the stored auth_config, secrets included: never send it to a client. */
export type ProjectAuthConfig = ProjectSettings['auth_config'];

/**
 * Broadcast on `projects.changed` by the projects service after a write is stored (settings, keys, plan,
 * limits): every gateway drops its cached principals and player-auth config of the project at once (ADR-0020).
 */
@BusEvent(P.changed)
export class ProjectChangedBroadcast {
  @Str() projectId!: string;
  @Enum(['settings', 'keys', 'plan']) what!: 'settings' | 'keys' | 'plan';
}
