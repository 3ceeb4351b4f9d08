// The HTTP API's inputs and answers as the gateway's controllers and OpenAPI document name them. Every
// one is a contract class of proto (class-validator decorators): validation and the document read the
// same declaration.
import type { AuthConfig as AuthConfigShape } from '@spawnpoint/proto';

export {
  StartServerBody, V2StartServerBody, RestartServerBody, UpdateServerBody, ServerIdParams, StopServerQuery, ListServersQuery,
  ServerPortOverride, NetworkPortView as NetworkPort, ServerView as Server, ServerList, V2ServerView as V2Server,
  UploadUrlQuery, UploadUrl, DockerImageBody, BuildIdParams, UploadParams, ListBuildsQuery, BuildView as Build, BuildList, BuildDeleted, BuildLogs,
  ArtifactQuery, ArtifactUrl,
  V2BuildNameQuery, V2ListBuildsQuery, V2BuildIdParams, V2BuildView as V2Build, V2BuildList, V2BuildDetail, V2UploadUrl, V2BuildUpload, V2BuildDeleted, V2BuildUploadForm,
  V2InstanceView as V2Instance, V2ListServersQuery, V2ServerIdParams, V2ServerList, V2ServerStatusHeaders, V2ServerStopped, V2ProjectView as V2Project,
  PortConfigInput as PortConfig, PoolConfigInput as PoolConfigSchema, LobbyConfigInput as LobbyConfigSchema, LOBBY_CONFIG_NAME,
  SettingsPatch, SettingsAnswer as Settings,
  RateLimitsInput as RateLimits, CreateProjectBody, ProjectIdParams, PatchProjectBody, CreatedProject, RotatedKeys, ProjectAdminView as ProjectAdmin,
  ErrorBody, Health, Probe,
  LogsQuery, LogHistogramQuery, LogPage, LogHistogram, ServerMetricsView as ServerMetrics, ProjectLogsQuery, ProjectLogPage, ProjectLogLineView as ProjectLogLine,
  PoolCapacityView as PoolCapacity, PoolRegionCapacity,
  PLAYER_ID_PATTERN, PlayerIdHeader, LobbyConfigParams, LobbyIdParams, LobbyPlayerParams, CreateLobbyBody, JoinLobbyBody, PlayerStateBody,
  LobbyView as Lobby, LeftLobby, DeletedLobby, LobbySettingsBody, TargetPlayerBody, BrowseLobbiesQuery, LobbyViewPage as LobbyPage, LobbyEventsQuery, ProjectLobbyEventsQuery,
  StartMatchmakingBody, MatchmakingExplanation, BackfillOverrideBody, BackfillState,
} from '@spawnpoint/proto';
export type AuthConfig = AuthConfigShape;

/** Answers that are not JSON: documented by a description. */
export const ArtifactArchive = { type: 'string', description: 'tar.gz of the unpacked build directory, executable bits kept' };
export const LobbyEventStream = {
  type: 'string',
  description: 'text/event-stream. Events: connected (Lobby), lobby_updated (Lobby), lobby_deleted ({id, reason}; the stream then ends), '
    + 'queue_stats (queueStats, every 10 s while in_queue), match_found (Lobby), ping ({}, every 30 s). Every event has an id '
    + '(<lobbyId>:<revision>); reconnect with Last-Event-ID to receive what was missed.',
};
export const ProjectLobbyEventStream = {
  type: 'string',
  description: 'text/event-stream. Events: connected ({config}), lobby_updated (Lobby, any lobby of the configuration), lobby_deleted ({id, reason}), '
    + 'queue_stats ({queues: [{mode, region, playersSearching, lobbiesInQueue, avgWaitSeconds}]}: the project\'s queues of this configuration, '
    + 'every 10 s), ping ({}, every 30 s). Lobby events have the id <lobbyId>:<revision>, the others <config>:<n>. Nothing is replayed: '
    + 'after connected, read the lobbies again.',
};
