// Request and response schemas of the HTTP API: used to validate requests and to write OpenAPI.
import { z } from 'zod';
import { REDACTED_SECRET } from '@spawnpoint/proto';
import { BUILD_NAME_PATTERN, COMPUTE_SIZE_NAMES, PLANS, REGIONS } from '@spawnpoint/domain';
import { ProjectionHealth } from './parked-schemas';

const nonNegInt = z.number().int().min(0);
export const Region = z.enum(REGIONS);
export const ComputeSize = z.enum(COMPUTE_SIZE_NAMES as [string, ...string[]]);
export const BuildName = z.string().regex(BUILD_NAME_PATTERN, 'must be 1-64 characters of letters, digits, ".", "_" or "-", starting with a letter or digit');
const EnvName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'must be a valid environment variable name');
export const EnvVars = z.record(EnvName, z.string().max(32_768)).refine((o) => Object.keys(o).length <= 200, 'at most 200 variables');
const JsonObject = z.record(z.string(), z.unknown());
export const CustomData = JsonObject.refine((o) => JSON.stringify(o).length <= 65_536, 'custom_data must be at most 64 KiB as JSON');
const PortName = z.string().regex(/^[a-z0-9]([a-z0-9_-]{0,30}[a-z0-9])?$/, 'lower-case letters, digits, "-" or "_", at most 32');
const PortNumber = z.number().int().min(1).max(65535);
const Protocol = z.enum(['udp', 'tcp']);
export const Uuid = z.string().uuid('must be a UUID');

export const ServerPortOverride = z.strictObject({ name: PortName, internal_port: PortNumber, protocol: Protocol, tls_enabled: z.boolean().optional() });

export const StartServerBody = z.strictObject({
  name: z.string().min(1).max(128),
  region: Region,
  version_tag: BuildName.optional(),
  version: z.number().int().min(1).nullable().optional(),
  compute_size: ComputeSize.optional(),
  ttl: z.number().int().min(1).nullable().optional(),
  startup_args: z.string().max(4096).nullable().optional(),
  custom_data: CustomData.nullable().optional(),
  service_type: z.enum(['match_based', 'persistent_world']).optional(),
  auto_restart: z.boolean().optional(),
  match_id: z.string().min(1).max(128).optional(),
  environment_variables: EnvVars.optional(),
  port_configs: z.array(ServerPortOverride).max(16).optional(),
  use_pool: z.boolean().optional(),
});

export const V2StartServerBody = z.strictObject({
  name: z.string().min(1).max(128),
  region: Region,
  startup_args: z.string().max(4096).nullable().optional(),
  compute_size: ComputeSize.optional(),
  version_tag: BuildName.optional(),
  ttl: z.number().int().min(1).nullable().optional(),
  custom_data: CustomData.nullable().optional(),
});

export const RestartServerBody = z.strictObject({
  name: z.string().min(1).max(128).optional(),
  startup_args: z.string().max(4096).nullable().optional(),
  version_tag: BuildName.optional(),
  version: z.number().int().min(1).nullable().optional(),
  ttl: z.number().int().min(1).nullable().optional(),
  auto_restart: z.boolean().optional(),
  custom_data: CustomData.nullable().optional(),
  match_id: z.string().min(1).max(128).optional(),
  environment_variables: EnvVars.optional(),
  port_configs: z.array(ServerPortOverride).max(16).optional(),
});
export const UpdateServerBody = z.strictObject({ custom_data: CustomData });

export const ServerIdParams = z.strictObject({ instance_id: Uuid });
export const StopServerQuery = z.strictObject({ shutdown_reason: z.enum(['SHUTDOWN_SIGNAL', 'PROCESS_EXITED', 'TTL_EXPIRED']).optional() });
export const ListServersQuery = z.strictObject({
  status: z.enum(['launching', 'running', 'stopped']).optional(),
  region: Region.optional(),
  version_tag: BuildName.optional(),
  match_id: z.string().max(128).optional(),
  limit: z.coerce.number().int().min(1).max(100).optional(),
  next_token: z.string().max(512).optional(),
});

export const NetworkPort = z.object({ name: z.string(), internal_port: z.number().int(), external_port: z.number().int(), protocol: Protocol, host: z.string(), tls_enabled: z.boolean() });
export const Server = z.object({
  instance_id: Uuid, name: z.string(), status: z.enum(['launching', 'running', 'stopped']), network_ports: z.array(NetworkPort),
  startup_args: z.string().nullable(), service_type: z.enum(['match_based', 'persistent_world']), compute_size: z.string(), region: z.string(),
  version_tag: z.string(), version: z.number().int().nullable(), started_at: z.string().nullable(), stopped_at: z.string().nullable(),
  auto_restart: z.boolean(), custom_data: JsonObject.nullable(), ttl: z.number().int().nullable(), is_pool_server: z.boolean(),
  pool_claimed_at: z.string().nullable(), match_id: z.string(), created_at: z.string(), updated_at: z.string(),
});
export const ServerList = z.object({ servers: z.array(Server), next_token: z.string().nullable() });
export const V2Server = Server.pick({ instance_id: true, name: true, status: true, region: true, network_ports: true, compute_size: true, version_tag: true, started_at: true });

export const UploadUrlQuery = z.strictObject({ name: BuildName, executable_path: z.string().min(1).max(1024).optional() });
export const UploadUrl = z.object({ build_id: Uuid, name: z.string(), version: z.number().int(), upload_url: z.string(), expires_at: z.string(), message: z.string() });
export const DockerImageBody = z.strictObject({ name: BuildName, image: z.string().min(1).max(512).regex(/^\S+$/, 'must not contain whitespace') });
export const BuildIdParams = z.strictObject({ id: Uuid });
export const UploadParams = z.strictObject({ token: z.string().min(10).max(200) });
export const ListBuildsQuery = z.strictObject({ name: BuildName.optional() });
export const Build = z.object({
  build_id: Uuid, name: z.string(), version: z.number().int(), status: z.enum(['uploading', 'processing', 'ready', 'failed']), kind: z.enum(['zip', 'image']),
  image: z.string().nullable(), executable_path: z.string().nullable(), size_bytes: z.number().int().nullable(), error: z.string().nullable(),
  created_at: z.string(), updated_at: z.string(),
});
export const BuildList = z.object({ builds: z.array(Build) });
export const BuildDeleted = z.object({ status: z.literal('build_deleted'), build_id: Uuid });

export const PortConfig = z.strictObject({ id: z.string().max(64).optional(), name: PortName, internal_port: PortNumber, protocol: Protocol, tls_enabled: z.boolean().optional() });
export const PoolConfigSchema = z.strictObject({
  enabled: z.boolean(),
  regions: z.partialRecord(Region, z.strictObject({ min_ready: z.number().int().min(0).max(500), max: z.number().int().min(1).max(1000) })
    .refine((r) => r.max >= r.min_ready, 'max must be at least min_ready')),
  build_name: BuildName,
  build_version: z.number().int().min(1).nullable().optional(),
  compute_size: ComputeSize.optional(),
});

// auth_config: how player lobby requests prove x-player-id (see players/). Secrets are write-only.
const HttpUrl = z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).max(2048);
/** A settings body read back from GET (secrets shown as REDACTED_SECRET) and posted again must not store the mask. */
const secret = (s: z.ZodString) => s.refine((v) => !/^\*+$/.test(v), `is the redacted placeholder (${REDACTED_SECRET}) from GET /v3/projects/settings: send the real secret`);
const JwtAuthConfig = z.strictObject({
  provider: z.literal('jwt'),
  jwks_url: HttpUrl.optional(),
  secret: secret(z.string().min(32, 'must be at least 32 characters (HS256 needs a 256-bit key)').max(4096)).optional(),
  issuer: z.string().min(1).max(1024).optional(),
  audience: z.string().min(1).max(1024).optional(),
  player_id_claim: z.string().min(1).max(128).default('sub'),
}).check((ctx) => {
  if ((ctx.value.jwks_url === undefined) === (ctx.value.secret === undefined)) {
    ctx.issues.push({ code: 'custom', input: ctx.value, message: 'Give exactly one of jwks_url and secret', path: [] });
  }
});
const PlayFabAuthConfig = z.strictObject({
  provider: z.literal('playfab'),
  title_id: z.string().regex(/^[A-Za-z0-9]{1,32}$/, 'must be the PlayFab title id (letters and digits)'),
  secret_key: secret(z.string().min(1).max(1024)),
  base_url: HttpUrl.optional(),
});
const SteamAuthConfig = z.strictObject({
  provider: z.literal('steam'),
  app_id: z.union([z.string().regex(/^[1-9][0-9]{0,15}$/, 'must be a Steam app id (digits)'), z.number().int().min(1)]),
  web_api_key: secret(z.string().min(1).max(1024)),
  base_url: HttpUrl.optional(),
});
export const AuthConfig = z.discriminatedUnion('provider', [
  z.strictObject({ provider: z.literal('none') }), JwtAuthConfig, PlayFabAuthConfig, SteamAuthConfig,
], { error: 'provider must be one of none, jwt, playfab, steam' });
export type AuthConfig = z.output<typeof AuthConfig>;

// lobby_configs: named lobby configurations (apps/lobbies/src/lobby-config.ts reads them; `default` exists without one).
export const LOBBY_CONFIG_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
export const LobbyConfigSchema = z.strictObject({
  id: z.string().min(1).max(128).optional(),
  name: z.string().regex(LOBBY_CONFIG_NAME, 'must be 1-64 characters of letters, digits, ".", "_" or "-", starting with a letter or digit'),
  enabled: z.boolean().optional(),
  maxPlayers: z.number().int().min(1).max(100).optional(),
  timeout: z.number().int().min(1).max(86_400).optional().describe('Seconds without member activity before the lobby is deleted (default 300)'),
  heartbeat: z.boolean().optional(),
  heartbeatTimeout: z.number().min(5).max(3600).optional().describe('Seconds a member may be silent (no heartbeat, no open stream) when heartbeat is on (default 30)'),
  hostLeaveBehavior: z.enum(['promote', 'close']).optional(),
  customProperties: JsonObject.optional(),
  inviteCodeConfig: z.strictObject({
    type: z.enum(['numeric', 'alphanumeric']).optional(),
    length: z.number().int().min(4).max(16).optional(),
    prefix: z.string().regex(/^[A-Za-z0-9-]{0,8}$/, 'up to 8 letters, digits or "-"').optional(),
  }).optional(),
  serverSettings: z.strictObject({
    version_tag: BuildName.optional(),
    version: z.number().int().min(1).optional(),
    compute_size: ComputeSize.optional(),
    ttl: z.number().int().min(1).max(86_400).optional(),
    startup_args: z.string().max(4096).optional(),
    environment_variables: EnvVars.optional(),
    service_type: z.enum(['match_based', 'persistent_world']).optional(),
  }).optional(),
  matchmaking: z.looseObject({ modes: JsonObject.optional() }).optional(),
});
const LobbyConfigs = z.array(LobbyConfigSchema).max(100).check((ctx) => {
  const names = ctx.value.map((c) => c.name);
  const ids = ctx.value.flatMap((c) => (c.id === undefined ? [] : [c.id]));
  if (new Set(names).size !== names.length) ctx.issues.push({ code: 'custom', input: ctx.value, message: 'lobby config names must be unique', path: [] });
  if (new Set(ids).size !== ids.length) ctx.issues.push({ code: 'custom', input: ctx.value, message: 'lobby config ids must be unique', path: [] });
});

export const SettingsPatch = z.strictObject({
  port_configs: z.array(PortConfig).max(16).refine((a) => new Set(a.map((p) => p.name)).size === a.length, 'port names must be unique').optional(),
  auth_config: AuthConfig.optional(),
  environment_variables: EnvVars.optional(),
  pool_config: PoolConfigSchema.nullable().optional(),
  lobby_configs: LobbyConfigs.optional(),
  client_key_server_control: z.boolean().optional(),
});
export const Settings = z.object({
  port_configs: z.array(z.object({ id: z.string(), name: z.string(), internal_port: z.number().int(), protocol: Protocol, tls_enabled: z.boolean() })),
  auth_config: z.looseObject({ provider: z.string() }),
  environment_variables: z.record(z.string(), z.string()),
  pool_config: JsonObject.nullable(),
  lobby_configs: z.array(JsonObject),
  client_key_server_control: z.boolean(),
  updated_at: z.string(),
});

export const RateLimits = z.strictObject({ read_per_second: z.number().int().min(1).max(1_000_000), write_per_second: z.number().int().min(1).max(1_000_000), player_per_second: z.number().int().min(1).max(1_000_000) });
export const CreateProjectBody = z.strictObject({ name: z.string().min(1).max(100), plan: z.enum(PLANS as [string, ...string[]]).optional() });
export const ProjectIdParams = z.strictObject({ id: z.string().min(1).max(64) });
export const PatchProjectBody = z.strictObject({ plan: z.enum(PLANS as [string, ...string[]]).optional(), rate_limits: RateLimits.nullable().optional() });
export const CreatedProject = z.object({ project_id: z.string(), name: z.string(), plan: z.string(), server_key: z.string(), client_key: z.string() });
export const RotatedKeys = z.object({ project_id: z.string(), server_key: z.string(), client_key: z.string() });
export const ProjectAdmin = z.object({ project_id: z.string(), name: z.string(), plan: z.string(), rate_limits: RateLimits, created_at: z.string(), updated_at: z.string() });

export const ErrorBody = z.object({ error: z.string(), status: z.number().int(), detail: z.union([z.string(), z.array(z.object({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() }))]).optional() });
export const Health = z.object({
  status: z.enum(['ok', 'degraded']), version: z.string(), checks: z.record(z.string(), z.object({ ok: z.boolean(), detail: z.string().optional() })),
  projections: z.array(ProjectionHealth).optional().describe('read models: parked events and lag (degraded with 200 when one has parked events or lags over 30 s)'),
});
export { nonNegInt };

// Server logs, log histogram and metrics. Times are checked by the servers service (they depend on its `now`).
const logTime = (fallback: string) => z.string().min(1).max(64).optional()
  .describe(`ISO 8601 (e.g. 2026-11-21T10:00:00Z; no offset = UTC), relative to now (-30s, -15m, -1h, -2d) or now. Default: ${fallback}`);
const LogSearch = z.string().max(256).describe('Case-insensitive substring of the message (literal: no wildcards)');
export const LogsQuery = z.strictObject({
  start_time: logTime('24 hours before end_time'),
  end_time: logTime('now'),
  limit: z.coerce.number().int().min(1).max(1000).optional().describe('Lines per page, default 200'),
  search: LogSearch.optional(),
  next_token: z.string().max(512).optional(),
});
export const LogHistogramQuery = z.strictObject({
  start_time: logTime('1 hour before end_time'),
  end_time: logTime('now'),
  step: z.coerce.number().int().min(5).max(3600).optional().describe('Bin width in seconds, default 60'),
  search: LogSearch.optional(),
});
const LogLevelName = z.enum(['info', 'warn', 'error']);
export const LogPage = z.object({
  logs: z.array(z.object({ timestamp: z.string(), message: z.string(), level: LogLevelName, instance_id: Uuid, region: z.string() })),
  next_token: z.string().nullable(),
});
export const LogHistogram = z.object({
  buckets: z.array(z.object({ t: z.string(), info: nonNegInt, warn: nonNegInt, error: nonNegInt })).describe('Oldest first; empty bins omitted'),
  step: z.number().int().describe('Bin width used (wider than asked when the window would need over 10,000 bins)'),
  window: z.object({ start: z.string(), end: z.string() }),
});
export const ServerMetrics = z.object({
  cpu_percent: z.number().nullable(), memory_bytes: nonNegInt.nullable(), memory_limit_bytes: nonNegInt.nullable(),
  network_rx_bytes: nonNegInt.nullable(), network_tx_bytes: nonNegInt.nullable(), sampled_at: z.string(),
});

export const ArtifactQuery = z.object({
  expires: z.string().describe('Unix time (seconds) after which the URL is refused'),
  signature: z.string().describe('hex HMAC-SHA256 of `{build_id}.{expires}` under SPAWNPOINT_ARTIFACT_SECRET'),
});
export const ArtifactUrl = z.object({
  build_id: Uuid, url: z.string().describe('GET it (no api-key) for a tar.gz of the unpacked build'), expires_at: z.string(),
});
export const ArtifactArchive = z.string().describe('tar.gz of the unpacked build directory, executable bits kept');

// Lobbies (v3)
export const PLAYER_ID_PATTERN = /^[A-Za-z0-9_.:@-]{1,128}$/;
export const PlayerIdHeader = z.object({ 'x-player-id': z.string().regex(PLAYER_ID_PATTERN, 'must be 1-128 characters of [A-Za-z0-9_.:@-]') });
export const LobbyConfigParams = z.strictObject({ config: z.string().min(1).max(128) });
export const LobbyIdParams = z.strictObject({ config: z.string().min(1).max(128), id: Uuid });
export const CreateLobbyBody = z.strictObject({
  name: z.string().max(128).nullable().optional(),
  maxPlayers: z.number().int().min(1).max(100).optional(),
  region: Region.optional(),
  isPrivate: z.boolean().optional(),
  allowLateJoin: z.boolean().optional(),
  settings: JsonObject.optional(),
  state: JsonObject.optional(),
});
export const JoinLobbyBody = z.strictObject({ lobbyId: Uuid.optional(), code: z.string().min(1).max(64).optional(), state: JsonObject.optional() });
export const PlayerStateBody = z.strictObject({ state: JsonObject });
export const Lobby = z.object({
  id: z.string(),
  code: z.string().nullable(),
  config: z.string(),
  name: z.string().nullable().describe('Display name given on create or in settings; null when none'),
  status: z.enum(['waiting', 'in_queue', 'starting', 'matched', 'match_found', 'in_game']),
  host: z.string(),
  maxPlayers: z.number().int(),
  currentPlayers: z.number().int(),
  region: z.string(),
  isPrivate: z.boolean(),
  allowLateJoin: z.boolean(),
  settings: JsonObject,
  players: z.array(z.object({ id: z.string(), state: JsonObject, isHost: z.boolean() })),
  server: JsonObject.nullable(),
  matchmaking: JsonObject.nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const LeftLobby = z.object({ status: z.literal('left'), lobbyId: z.string() });
export const DeletedLobby = z.object({ status: z.literal('lobby_deleted'), id: z.string() });
export const LobbySettingsBody = z.strictObject({
  name: z.string().max(128).nullable().optional(),
  maxPlayers: z.number().int().min(1).max(100).optional(),
  isPrivate: z.boolean().optional(),
  allowLateJoin: z.boolean().optional(),
  region: Region.optional(),
  settings: JsonObject.optional(),
});
export const TargetPlayerBody = z.strictObject({ playerId: z.string().regex(PLAYER_ID_PATTERN, 'must be 1-128 characters of [A-Za-z0-9_.:@-]') });
export const BrowseLobbiesQuery = z.strictObject({
  region: Region.optional(),
  status: z.enum(['waiting', 'in_queue', 'starting', 'matched', 'match_found', 'in_game']).optional(),
  limit: z.coerce.number().int().min(1).max(100).optional().describe('Lobbies per page, default 20'),
  next_token: z.string().max(512).optional(),
});
export const LobbyPage = z.object({ lobbies: z.array(Lobby), next_token: z.string().nullable() });
/** A browser's EventSource cannot send headers: the event stream also takes them as query parameters. */
export const LobbyEventsQuery = z.strictObject({
  api_key: z.string().max(200).optional(),
  player_id: z.string().regex(PLAYER_ID_PATTERN).optional(),
  player_token: z.string().max(8192).optional(),
  last_event_id: z.string().max(128).optional(),
});
export const LobbyEventStream = z.string().describe(
  'text/event-stream. Events: connected (Lobby), lobby_updated (Lobby), lobby_deleted ({id, reason}; the stream then ends), '
  + 'queue_stats (queueStats, every 10 s while in_queue), match_found (Lobby), ping ({}, every 30 s). Every event has an id '
  + '(<lobbyId>:<revision>); reconnect with Last-Event-ID to receive what was missed.',
);
