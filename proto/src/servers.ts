// Servers: the HTTP inputs (bodies, params, queries), the bus requests to the servers service and the
// Server resource exactly as the interface names it.
import { type GameStatusResource, type NetworkPort, REPORTED_STATES, type ReportedState, type ServerResource } from '@spawnpoint/domain';
import type { Plan } from './shared';
import { SUBJECTS } from './subjects';
import { MAX_BUILDS_OFFSET as MAX_SERVERS_OFFSET } from './builds';
import { BusRequest } from './contracts';
import { Bool, Enum, Flag, Int, Json, Nested, NestedArray, Str, UuidField } from './validation/fields';
import {
  BuildNameField, ComputeSizeField, CustomDataField, EnvVarsField, PortNameField, PortNumberField, ProtocolField, RegionField,
  ServerStatusField, ServiceTypeField,
} from './http/fields';

const S = SUBJECTS.servers;

export class NetworkPortView implements NetworkPort {
  @Str() name!: string;
  @Int() internal_port!: number;
  @Int() external_port!: number;
  @ProtocolField() protocol!: 'udp' | 'tcp';
  @Str() host!: string;
  @Bool() tls_enabled!: boolean;
}

/** What the game last reported with its server token (ADR-0016); cleared when its machine restarts. */
export class GameStatusView implements GameStatusResource {
  @Int({ nullable: true }) players!: number | null;
  @Enum(['healthy', 'degraded', 'unhealthy'], { nullable: true }) health!: 'healthy' | 'degraded' | 'unhealthy' | null;
  @Str({ nullable: true }) message!: string | null;
  @Str() reported_at!: string;
}

/** The Server resource (the domain's ServerResource) as a contract: checked on the bus and at the HTTP edge, the SDK's Server. */
export class ServerView implements ServerResource {
  @UuidField() instance_id!: string;
  @Str() name!: string;
  @ServerStatusField() status!: 'launching' | 'running' | 'stopped';
  @NestedArray(() => NetworkPortView) network_ports!: NetworkPortView[];
  @Str({ nullable: true }) startup_args!: string | null;
  @ServiceTypeField() service_type!: 'match_based' | 'persistent_world';
  @Str() compute_size!: string;
  @Str() region!: string;
  @Str() version_tag!: string;
  @Int({ nullable: true }) version!: number | null;
  @Str({ nullable: true }) started_at!: string | null;
  @Str({ nullable: true }) stopped_at!: string | null;
  @Bool() auto_restart!: boolean;
  @Json({ nullable: true }) custom_data!: Record<string, unknown> | null;
  @Int({ nullable: true }) ttl!: number | null;
  @Bool() is_pool_server!: boolean;
  @Str({ nullable: true }) pool_claimed_at!: string | null;
  @Str() match_id!: string;
  @Str() created_at!: string;
  @Str() updated_at!: string;
  @Enum(['ports', 'sdk'], { description: 'ports: running once every port is bound; sdk: once the game reports ready (POST /v3/game/ready)' }) readiness!: 'ports' | 'sdk';
  @Nested(() => GameStatusView, { nullable: true }) game!: GameStatusView | null;
}

export class ServerPortOverride {
  @PortNameField() name!: string;
  @PortNumberField() internal_port!: number;
  @ProtocolField() protocol!: 'udp' | 'tcp';
  @Bool({ optional: true }) tls_enabled?: boolean;
}

export class StartServerBody {
  @Str({ min: 1, max: 128 }) name!: string;
  @RegionField() region!: string;
  @BuildNameField({ optional: true }) version_tag?: string;
  @Int({ min: 1, optional: true, nullable: true }) version?: number | null;
  @ComputeSizeField({ optional: true }) compute_size?: string;
  @Int({ min: 1, optional: true, nullable: true }) ttl?: number | null;
  @Str({ max: 4096, optional: true, nullable: true }) startup_args?: string | null;
  @CustomDataField({ optional: true, nullable: true }) custom_data?: Record<string, unknown> | null;
  @ServiceTypeField({ optional: true }) service_type?: 'match_based' | 'persistent_world';
  @Bool({ optional: true }) auto_restart?: boolean;
  @Str({ min: 1, max: 128, optional: true }) match_id?: string;
  @EnvVarsField({ optional: true }) environment_variables?: Record<string, string>;
  @NestedArray(() => ServerPortOverride, { max: 16, optional: true }) port_configs?: ServerPortOverride[];
  @Bool({ optional: true }) use_pool?: boolean;
  /** sdk: stays launching until the game reports ready with its server token (the startup timeout still applies). */
  @Enum(['ports', 'sdk'], { optional: true }) readiness?: 'ports' | 'sdk';
}

export class RestartServerBody {
  @Str({ min: 1, max: 128, optional: true }) name?: string;
  @Str({ max: 4096, optional: true, nullable: true }) startup_args?: string | null;
  @BuildNameField({ optional: true }) version_tag?: string;
  @Int({ min: 1, optional: true, nullable: true }) version?: number | null;
  @Int({ min: 1, optional: true, nullable: true }) ttl?: number | null;
  @Bool({ optional: true }) auto_restart?: boolean;
  @CustomDataField({ optional: true, nullable: true }) custom_data?: Record<string, unknown> | null;
  @Str({ min: 1, max: 128, optional: true }) match_id?: string;
  @EnvVarsField({ optional: true }) environment_variables?: Record<string, string>;
  @NestedArray(() => ServerPortOverride, { max: 16, optional: true }) port_configs?: ServerPortOverride[];
}

export class UpdateServerBody { @CustomDataField() custom_data!: Record<string, unknown> }
export class ServerIdParams { @UuidField() instance_id!: string }
export class StopServerQuery { @Enum(['SHUTDOWN_SIGNAL', 'PROCESS_EXITED', 'TTL_EXPIRED'], { optional: true }) shutdown_reason?: string }
/** GET /v3/servers. Without include_launching or status only running servers are listed (as the hosted service does). */
export class ListServersQuery {
  @Flag({ optional: true, description: 'List launching servers too (default false: running only). Ignored when status is given' }) include_launching?: boolean;
  @Flag({ optional: true, description: 'List unclaimed pool servers too (default false)' }) include_pool?: boolean;
  @ServerStatusField({ optional: true }) status?: string;
  @RegionField({ optional: true }) region?: string;
  @BuildNameField({ optional: true }) version_tag?: string;
  @Str({ max: 128, optional: true }) match_id?: string;
  @Int({ min: 1, max: 100, optional: true, coerce: true, description: 'Servers per page, default 50' }) limit?: number;
  @Int({ min: 0, max: MAX_SERVERS_OFFSET, optional: true, coerce: true, description: 'Servers to skip, default 0' }) offset?: number;
}

// Bus requests. Bodies were checked in full at the gateway: here they are checked as objects.
@BusRequest(S.start)
export class StartServerRequest {
  @Str() projectId!: string;
  @Str() plan!: Plan;
  @Json() body!: StartServerBody;
}
@BusRequest(S.get)
export class GetServerRequest {
  @Str() projectId!: string;
  @Str() serverId!: string;
  /** Answer only once the read model shows every server event committed before the request (service-to-service checks). */
  @Bool({ optional: true }) fresh?: boolean;
}
@BusRequest(S.list)
export class ListServersRequest {
  @Str() projectId!: string;
  @Bool({ optional: true }) include_launching?: boolean;
  @Bool({ optional: true }) include_pool?: boolean;
  @Str({ optional: true }) status?: string;
  @Str({ optional: true }) region?: string;
  @Str({ optional: true }) version_tag?: string;
  @Str({ optional: true }) match_id?: string;
  @Int({ optional: true }) limit?: number;
  @Int({ optional: true }) offset?: number;
}
/** One page of a project's servers, newest first: `total` matches the filters, `has_more` when a later page has some. */
export class ServerList {
  @Int({ min: 0 }) total!: number;
  @NestedArray(() => ServerView) servers!: ServerView[];
  @Int({ min: 1 }) limit!: number;
  @Int({ min: 0 }) offset!: number;
  @Bool() has_more!: boolean;
}
@BusRequest(S.stop)
export class StopServerRequest {
  @Str() projectId!: string;
  @Str() serverId!: string;
  @Str({ optional: true }) reason?: string;
}
@BusRequest(S.usesBuild)
export class UsesBuildRequest { @Str() projectId!: string; @Str() buildId!: string }
@BusRequest(S.restart)
export class RestartServerRequest { @Str() projectId!: string; @Str() serverId!: string; @Json() body!: RestartServerBody }
@BusRequest(S.update)
export class UpdateServerRequest { @Str() projectId!: string; @Str() serverId!: string; @Json() customData!: Record<string, unknown> }
@BusRequest(S.reportState)
export class ReportServerStateRequest { @Str() projectId!: string; @Str() serverId!: string; @Enum(REPORTED_STATES) state!: ReportedState }
