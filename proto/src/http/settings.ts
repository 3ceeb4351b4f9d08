// POST /v3/projects/settings: the settings patch (every field optional) and the settings answer.
// auth_config: how player lobby requests prove x-player-id (apps/gateway/src/players). Secrets are write-only.
import { REDACTED_SECRET } from '../redacted';
import {
  Bool, Custom, Enum, HttpUrl, Int, Json, List, Nested, NestedArray, Num, ObjectRule, Rule, Str, type JsonSchema,
} from '../validation/fields';
import {
  BuildNameField, ComputeSizeField, EnvVarsField, LobbyConfigNameField, PortNameField, PortNumberField, ProtocolField, ServiceTypeField,
} from './fields';
import { REGIONS } from '@spawnpoint/domain';
import type { PoolConfig, PoolRegionConfig, ServiceType } from '@spawnpoint/domain';

const NOT_REDACTED = `is the redacted placeholder (${REDACTED_SECRET}) from GET /v3/projects/settings: send the real secret`;
/** A settings body read back from GET (secrets shown as REDACTED_SECRET) and posted again must not store the mask. */
const NotRedacted = () => Rule('notRedacted', (v) => typeof v !== 'string' || !/^\*+$/.test(v), NOT_REDACTED);
const PROVIDER_MSG = 'provider must be one of none, jwt, playfab, steam';

/** An auth_config whose provider is none of the four: only its provider is reported. */
export class UnknownAuth { @Enum(['none', 'jwt', 'playfab', 'steam'], { msg: PROVIDER_MSG }) provider!: string }
export class NoAuth { @Enum(['none']) provider!: 'none' }
export class JwtAuth {
  @ObjectRule((o) => (o.jwks_url === undefined) !== (o.secret === undefined), 'Give exactly one of jwks_url and secret')
  @Enum(['jwt']) provider!: 'jwt';
  @HttpUrl({ optional: true }) jwks_url?: string;
  @Str({ min: 32, max: 4096, optional: true }) @NotRedacted() secret?: string;
  @Str({ min: 1, max: 1024, optional: true }) issuer?: string;
  @Str({ min: 1, max: 1024, optional: true }) audience?: string;
  @Str({ min: 1, max: 128, optional: true, description: 'default sub' }) player_id_claim: string = 'sub';
}
export class PlayFabAuth {
  @Enum(['playfab']) provider!: 'playfab';
  @Str({ pattern: /^[A-Za-z0-9]{1,32}$/, msg: 'must be the PlayFab title id (letters and digits)' }) title_id!: string;
  @Str({ min: 1, max: 1024 }) @NotRedacted() secret_key!: string;
  @HttpUrl({ optional: true }) base_url?: string;
}
const steamAppId = (v: unknown) => (typeof v === 'string' && /^[1-9][0-9]{0,15}$/.test(v)) || (Number.isInteger(v) && (v as number) >= 1);
export class SteamAuth {
  @Enum(['steam']) provider!: 'steam';
  @Custom({ anyOf: [{ type: 'string', pattern: '^[1-9][0-9]{0,15}$' }, { type: 'integer', minimum: 1 }] }, { name: 'steamAppId', test: steamAppId, msg: 'must be a Steam app id (digits)' })
  app_id!: string | number;
  @Str({ min: 1, max: 1024 }) @NotRedacted() web_api_key!: string;
  @HttpUrl({ optional: true }) base_url?: string;
}
export type AuthConfig = NoAuth | JwtAuth | PlayFabAuth | SteamAuth;
export const AUTH_CONFIG_CLASSES = [NoAuth, JwtAuth, PlayFabAuth, SteamAuth];
const PROVIDERS = ['none', 'jwt', 'playfab', 'steam'];
/** The auth_config field: the provider picks the class that checks the rest. */
export const AuthConfigField = (o: { optional?: boolean } = {}) => Nested(() => UnknownAuth, {
  ...o,
  schema: { anyOf: AUTH_CONFIG_CLASSES.map((c) => ({ $nested: () => c })) },
  pick: (v) => AUTH_CONFIG_CLASSES[PROVIDERS.indexOf(v.provider as string)] ?? UnknownAuth,
});

export class PortConfigInput {
  @Str({ max: 64, optional: true }) id?: string;
  @PortNameField() name!: string;
  @PortNumberField() internal_port!: number;
  @ProtocolField() protocol!: 'udp' | 'tcp';
  @Bool({ optional: true }) tls_enabled?: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const int = (v: unknown, min: number, max: number) => Number.isInteger(v) && (v as number) >= min && (v as number) <= max;
const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;
/** A region's `demand` (libs/domain pool-demand.ts): every field optional, each in its range. */
const poolDemand = (d: unknown) => isObject(d)
  && Object.keys(d).every((k) => ['warmup_seconds', 'headroom', 'scale_to_zero_after_seconds', 'scale_down_after_seconds', 'schedule'].includes(k))
  && (d.warmup_seconds === undefined || int(d.warmup_seconds, 1, 600))
  && (d.headroom === undefined || (typeof d.headroom === 'number' && d.headroom >= 0 && d.headroom <= 10))
  && (d.scale_to_zero_after_seconds === undefined || d.scale_to_zero_after_seconds === null || int(d.scale_to_zero_after_seconds, 1, 604_800))
  && (d.scale_down_after_seconds === undefined || int(d.scale_down_after_seconds, 0, 86_400))
  && (d.schedule === undefined || (Array.isArray(d.schedule) && d.schedule.length <= 48 && d.schedule.every((e) => isObject(e)
    && Object.keys(e).every((k) => k === 'from' || k === 'to' || k === 'min_ready')
    && typeof e.from === 'string' && HHMM.test(e.from) && typeof e.to === 'string' && HHMM.test(e.to) && int(e.min_ready, 0, 500))));
const poolRegion = (r: unknown) => isObject(r) && Object.keys(r).every((k) => k === 'min_ready' || k === 'max' || k === 'demand')
  && int(r.min_ready, 0, 500) && int(r.max, 1, 1000) && (r.max as number) >= (r.min_ready as number)
  && (r.demand === undefined || poolDemand(r.demand));
const POOL_DEMAND_SCHEMA: JsonSchema = {
  type: 'object', additionalProperties: false,
  description: 'Sized by demand (docs/api.md "Pools sized by demand"): the ready count follows the queues, lobbies starting and recent claims, between min_ready (or 0 after scale_to_zero_after_seconds without demand) and max.',
  properties: {
    warmup_seconds: { type: 'integer', minimum: 1, maximum: 600, description: 'How long a pool server takes to be ready; default 5' },
    headroom: { type: 'number', minimum: 0, maximum: 10, description: 'Kept on top of the forecast, as a fraction of it; default 0.5' },
    scale_to_zero_after_seconds: { type: ['integer', 'null'], minimum: 1, maximum: 604800, description: 'No ready server after this long without demand; absent or null: never below min_ready' },
    scale_down_after_seconds: { type: 'integer', minimum: 0, maximum: 86400, description: 'The target goes down only once it has been lower this long; default 60' },
    schedule: {
      type: 'array', maxItems: 48, description: 'Times of day (UTC) with a ready count of their own, as a floor',
      items: {
        type: 'object', required: ['from', 'to', 'min_ready'], additionalProperties: false,
        properties: { from: { type: 'string', pattern: '^([01]\\d|2[0-3]):[0-5]\\d$' }, to: { type: 'string', pattern: '^([01]\\d|2[0-3]):[0-5]\\d$' }, min_ready: { type: 'integer', minimum: 0, maximum: 500 } },
      },
    },
  },
};
const POOL_REGIONS_SCHEMA: JsonSchema = {
  type: 'object', propertyNames: { enum: [...REGIONS] },
  additionalProperties: {
    type: 'object', required: ['min_ready', 'max'], additionalProperties: false,
    properties: { min_ready: { type: 'integer', minimum: 0, maximum: 500 }, max: { type: 'integer', minimum: 1, maximum: 1000 }, demand: POOL_DEMAND_SCHEMA },
  },
};
/** How a new build version replaces the pool's unclaimed servers (libs/domain pool-plan.ts); claimed ones are never touched. */
export class PoolRolloutInput {
  @ObjectRule((o) => o.max_surge !== 0 || o.max_unavailable !== 0, 'max_surge and max_unavailable cannot both be 0: the rollout could not proceed')
  @Int({ min: 0, max: 1000, optional: true, nullable: true, description: 'Servers started above the target while old ones still serve; default a quarter of the target (at least 1)' })
  max_surge?: number | null;
  @Int({ min: 0, max: 1000, optional: true, nullable: true, description: 'Ready servers the target may lack while old ones are replaced; default 0' })
  max_unavailable?: number | null;
}

export class PoolConfigInput {
  @Bool() enabled!: boolean;
  @Custom(POOL_REGIONS_SCHEMA, {
    name: 'poolRegions', msg: 'must map regions to {min_ready 0-500, max 1-1000, demand?}, max at least min_ready; demand: warmup_seconds 1-600, headroom 0-10, scale_to_zero_after_seconds 1-604800 or null, scale_down_after_seconds 0-86400, schedule [{from, to: "HH:MM", min_ready 0-500}] (at most 48)',
    test: (v) => isObject(v) && Object.entries(v).every(([k, r]) => (REGIONS as readonly string[]).includes(k) && poolRegion(r)),
  }) regions!: Record<string, PoolRegionConfig>;
  @BuildNameField() build_name!: string;
  @Int({ min: 1, optional: true, nullable: true }) build_version?: number | null;
  @ComputeSizeField({ optional: true }) compute_size?: string;
  /** A claimed pool server with no player reported (game API) within this many seconds is stopped; absent or null: no lease. */
  @Int({ min: 5, max: 86_400, optional: true, nullable: true }) claim_lease_seconds?: number | null;
  @Nested(() => PoolRolloutInput, { optional: true, nullable: true }) rollout?: PoolRolloutInput | null;
}

export class InviteCodeConfigInput {
  @Enum(['numeric', 'alphanumeric'], { optional: true }) type?: string;
  @Int({ min: 4, max: 16, optional: true }) length?: number;
  @Str({ pattern: /^[A-Za-z0-9-]{0,8}$/, msg: 'up to 8 letters, digits or "-"', optional: true }) prefix?: string;
}
export class LobbyServerSettingsInput {
  @BuildNameField({ optional: true }) version_tag?: string;
  @Int({ min: 1, optional: true }) version?: number;
  @ComputeSizeField({ optional: true }) compute_size?: string;
  @Int({ min: 1, max: 86_400, optional: true }) ttl?: number;
  @Str({ max: 4096, optional: true }) startup_args?: string;
  @EnvVarsField({ optional: true }) environment_variables?: Record<string, string>;
  @ServiceTypeField({ optional: true }) service_type?: ServiceType;
}
/** lobby_configs: named lobby configurations (apps/lobbies reads them; `default` exists without one). */
export class LobbyConfigInput {
  @Str({ min: 1, max: 128, optional: true }) id?: string;
  @LobbyConfigNameField() name!: string;
  @Bool({ optional: true }) enabled?: boolean;
  @Int({ min: 1, max: 100, optional: true }) maxPlayers?: number;
  @Int({ min: 1, max: 86_400, optional: true, description: 'Seconds without member activity before the lobby is deleted (default 300)' }) timeout?: number;
  @Bool({ optional: true }) heartbeat?: boolean;
  @Num({ min: 5, max: 3600, optional: true, description: 'Seconds a member may be silent (no heartbeat, no open stream) when heartbeat is on (default 30)' }) heartbeatTimeout?: number;
  @Enum(['promote', 'close'], { optional: true }) hostLeaveBehavior?: string;
  @Json({ optional: true }) customProperties?: Record<string, unknown>;
  @Nested(() => InviteCodeConfigInput, { optional: true, nullable: true }) inviteCodeConfig?: InviteCodeConfigInput | null;
  @Nested(() => LobbyServerSettingsInput, { optional: true }) serverSettings?: LobbyServerSettingsInput;
  @Json({ optional: true }) @Rule('matchmakingModes', (v) => !isObject(v) || v.modes === undefined || isObject(v.modes), 'modes must be an object')
  matchmaking?: Record<string, unknown>;
}

const unique = (key: (x: Record<string, unknown>) => unknown, msg: string, name: string) => Rule(name, (v) => {
  if (!Array.isArray(v)) return true;
  const keys = v.filter(isObject).map(key).filter((k) => k !== undefined);
  return new Set(keys).size === keys.length;
}, msg);

export class SettingsPatch {
  @NestedArray(() => PortConfigInput, { max: 16, optional: true }) @unique((p) => p.name, 'port names must be unique', 'uniqueNames')
  port_configs?: PortConfigInput[];
  @AuthConfigField({ optional: true }) auth_config?: AuthConfig;
  @EnvVarsField({ optional: true }) environment_variables?: Record<string, string>;
  @Nested(() => PoolConfigInput, { optional: true, nullable: true }) pool_config?: PoolConfigInput | null;
  @NestedArray(() => LobbyConfigInput, { max: 100, optional: true })
  @unique((c) => c.name, 'lobby config names must be unique', 'uniqueNames') @unique((c) => c.id, 'lobby config ids must be unique', 'uniqueIds')
  lobby_configs?: LobbyConfigInput[];
  @Bool({ optional: true }) client_key_server_control?: boolean;
}

export class PortConfigView {
  @Str() id!: string; @Str() name!: string; @Int() internal_port!: number; @ProtocolField() protocol!: 'udp' | 'tcp'; @Bool() tls_enabled!: boolean;
}
export class AuthConfigView { @Str() provider!: string }
/** GET /v3/projects/settings (secrets shown as REDACTED_SECRET). */
export class SettingsAnswer {
  @NestedArray(() => PortConfigView) port_configs!: PortConfigView[];
  @Nested(() => AuthConfigView) auth_config!: AuthConfigView;
  @Custom({ type: 'object', additionalProperties: { type: 'string' } }, { name: 'isJsonObject', test: isObject, msg: 'must be an object' }) environment_variables!: Record<string, string>;
  @Json({ nullable: true }) pool_config!: PoolConfig | null;
  @List({ type: 'object', additionalProperties: {} }) lobby_configs!: Record<string, unknown>[];
  @Bool() client_key_server_control!: boolean;
  @Str() updated_at!: string;
}
