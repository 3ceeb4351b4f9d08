// The hosted service's v2 servers API (`/api/v2/servers…`, `/api/v2/project`): its field names and shapes,
// over the same servers as v3. Inputs ignore unknown fields (v2 does); answers carry the fields the
// published description names, nothing of ours (v3 has the rest).
import { Transform } from 'class-transformer';
import { REPORTED_STATES, type ReportedState } from '@spawnpoint/domain';
import { NetworkPortView } from '../servers';
import { Bool, Enum, Flag, Int, Json, NestedArray, Str } from '../validation/fields';
import { BuildNameField, ComputeSizeField, CustomDataField, RegionField, ServerStatusField, ServiceTypeField } from './fields';

export class V2StartServerBody {
  @Str({ min: 1, max: 128 }) name!: string;
  @RegionField() region!: string;
  @Str({ max: 4096, optional: true, nullable: true }) startup_args?: string | null;
  @ComputeSizeField({ optional: true }) compute_size?: string;
  @BuildNameField({ optional: true, nullable: true }) version_tag?: string | null;
  /** The hosted service's Unity SDK sends it as a string ("3"): a string of digits is read as the number, as the hosted service does. */
  @Transform(({ value }) => (typeof value === 'string' && /^[0-9]{1,9}$/.test(value) ? Number(value) : value), { toClassOnly: true })
  @Int({ min: 1, optional: true, nullable: true, description: 'A build version of version_tag; a string of digits is accepted' }) version?: number | null;
  @Int({ min: 60, max: 86400, optional: true, nullable: true }) ttl?: number | null;
  @Bool({ optional: true, nullable: true }) auto_restart?: boolean | null;
  @CustomDataField({ optional: true, nullable: true }) custom_data?: Record<string, unknown> | null;
}

/** The start answer (the published ServerStartResponse). */
export class V2ServerView {
  @Str() instance_id!: string;
  @Str() name!: string;
  @ServerStatusField() status!: 'launching' | 'running' | 'stopped';
  @Str() region!: string;
  @NestedArray(() => NetworkPortView) network_ports!: NetworkPortView[];
  @Str() compute_size!: string;
  @Str() version_tag!: string;
  @Int({ nullable: true }) version!: number | null;
  @Str({ nullable: true }) started_at!: string | null;
}

/** A server as v2 shows it (the published Instance). */
export class V2InstanceView {
  @Str() instance_id!: string;
  @Str() name!: string;
  @NestedArray(() => NetworkPortView) network_ports!: NetworkPortView[];
  @ServerStatusField() status!: 'launching' | 'running' | 'stopped';
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
}

export class V2ListServersQuery {
  @Flag({ optional: true, description: 'Also list launching servers (default false: running ones only)' }) include_launching?: boolean;
}
export class V2ServerList {
  @Int({ description: 'How many servers `servers` holds (all of them: v2 does not page)' }) total_servers!: number;
  @NestedArray(() => V2InstanceView) servers!: V2InstanceView[];
}

/** Any string: an id that is not one of this project's servers is 404, as a malformed one is. */
export class V2ServerIdParams { @Str({ max: 200 }) instance_id!: string }

/** The answer of a stop: always `stopped` (also for a server that was stopped already). */
export class V2ServerStopped { @Enum(['stopped']) status!: 'stopped' }

/** The header a server reports its state with (the published InstanceState values). */
export class V2ServerStatusHeaders {
  @Enum(REPORTED_STATES, { description: 'running: the game is ready (a launching server runs); stopped: stop it; launching: nothing changes' })
  'X-Server-Status'!: ReportedState;
}

export class V2ProjectView { @Str() project_id!: string }
