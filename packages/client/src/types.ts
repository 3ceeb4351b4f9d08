// The API's shapes, from the contract package (@spawnpoint/proto), named as the OpenAPI document names them.
// Type-only imports, module by module (a bundler of declarations cannot follow proto's `export *` barrel):
// nothing of the validation classes reaches a bundle, and the published declarations inline them.
export type { BackfillOverrideBody, BackfillState } from '@spawnpoint/proto/dist/backfill';
export type { UploadUrl, DockerImageBody, ListBuildsQuery, BuildView as Build, BuildList, BuildDeleted, BuildLogs, BuildLogLineView as BuildLogLine, ArtifactUrl } from '@spawnpoint/proto/dist/builds';
export type { ErrorBody, Health } from '@spawnpoint/proto/dist/http/common';
export type { SettingsPatch, SettingsAnswer as Settings } from '@spawnpoint/proto/dist/http/settings';
export type { CreateLobbyBody, JoinLobbyBody, LobbyView as Lobby, LobbyPlayerView as LobbyPlayer, LeftLobby, DeletedLobby, LobbySettingsBody, BrowseLobbiesQuery, LobbyViewPage as LobbyPage, StartMatchmakingBody } from '@spawnpoint/proto/dist/lobbies';
export type { LogsQuery, LogHistogramQuery, LogPage, LogLineView as LogLine, LogHistogram, ServerMetricsView as ServerMetrics, ProjectLogsQuery, ProjectLogPage, ProjectLogLineView as ProjectLogLine } from '@spawnpoint/proto/dist/logs';
export type { PoolCapacityView as PoolCapacity, PoolRegionCapacity } from '@spawnpoint/proto/dist/pools';
export type { MatchmakingExplanation, QueueStatsView as QueueStats } from '@spawnpoint/proto/dist/matchmaking';
export type { ParkedEventList, ReplayedEvent } from '@spawnpoint/proto/dist/parked';
export type { CreateProjectBody, PatchProjectBody, CreatedProject, RotatedKeys, ProjectAdminView as ProjectAdmin, RateLimitsInput as RateLimits } from '@spawnpoint/proto/dist/projects';
export type { StartServerBody, RestartServerBody, UpdateServerBody, StopServerQuery, ListServersQuery, ServerPortOverride, NetworkPortView as NetworkPort, ServerView as Server, ServerList } from '@spawnpoint/proto/dist/servers';
export type { V2StartServerBody, V2ServerView as V2Server, V2InstanceView as V2Instance, V2ServerList, V2ServerStopped, V2ProjectView as V2Project } from '@spawnpoint/proto/dist/http/v2-servers';
