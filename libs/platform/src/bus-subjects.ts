// The bus's typed subjects (libs/messaging BusSubjects): every service's request subject with its request
// (the contract class in proto) and its reply. `bus.request(SUBJECTS.servers.get, …)` then answers a
// ServerView at compile time, and `route(subject, Message)` accepts only a message of the subject's types.
// One line per routed subject; a route whose subject is missing here does not compile. Lobby replies are the
// domain's LobbyView (what the handlers build), not proto's HTTP class.
import type { BackfillView, LobbyView } from '@spawnpoint/domain';
import type { ReplayResult } from './projections/projection-runner';
import type {
  AdminLobbyRequest, ArtifactBlob, ArtifactBlobRequest, AuthenticateRequest, BrowseLobbiesRequest, BuildDeleted, BuildList,
  BuildLogs, BuildLogsRequest, BuildView, ChangePlanRequest, CreateLobbyRequest, CreateProjectRequest, CreatedProject,
  DeletedLobby, ExplainMatchmakingRequest, GameReadyRequest, GameSelfRequest, GameServerReply, GameStatusRequest, GameStopRequest,
  GetBackfillRequest, GetBuildRequest, GetProjectRequest, GetServerRequest, JoinLobbyRequest, LeftLobby, ListBuildsRequest,
  ListServersRequest, LobbyPage, LogHistogram, LogHistogramRequest, LogPage, MatchLobbyCommandRequest, MatchmakingExplanation,
  OpenLobbyStreamRequest, OpenedLobbyStream, OverrideBackfillRequest, PlayerLobbyRequest, Principal, ProjectAdminView, ProjectAuthConfig,
  ProjectLogPage, ProjectLogsRequest, ProjectView, ReceiveUploadRequest, RegisterImageRequest, ReportServerStateRequest, RequestUploadRequest,
  ResolveBuildRequest, ResolvedBuild, RestartServerRequest, RotateKeysRequest, RotatedKeys, ServerList, ServerLogsRequest,
  ServerMetricsRequest, ServerMetricsView, ServerView, SetBackfillAcceptingRequest, SettingsView, StartMatchmakingRequest, StartServerRequest,
  StopServerRequest, TargetPlayerRequest, UpdateLobbySettingsRequest, UpdatePlayerStateRequest, UpdateServerRequest, UpdateSettingsRequest, UploadTicket,
  UsesBuildRequest, ServiceHealthReport, ListParkedRequest, ListParkedReply, ReplayParkedRequest, PoolCapacityRequest, PoolCapacityView,
} from '@spawnpoint/proto';

declare module '@spawnpoint/messaging' {
  interface BusSubjects {
    // builds
    'builds.requestUpload': [RequestUploadRequest, UploadTicket];
    'builds.receiveUpload': [ReceiveUploadRequest, BuildView];
    'builds.registerImage': [RegisterImageRequest, BuildView];
    'builds.delete': [GetBuildRequest, BuildDeleted];
    'builds.get': [GetBuildRequest, BuildView];
    'builds.list': [ListBuildsRequest, BuildList];
    'builds.logs': [BuildLogsRequest, BuildLogs];
    'builds.resolve': [ResolveBuildRequest, ResolvedBuild];
    'builds.artifactBlob': [ArtifactBlobRequest, ArtifactBlob];
    // projects
    'projects.create': [CreateProjectRequest, CreatedProject];
    'projects.rotateKeys': [RotateKeysRequest, RotatedKeys];
    'projects.changePlan': [ChangePlanRequest, ProjectAdminView];
    'projects.updateSettings': [UpdateSettingsRequest, SettingsView];
    'projects.authenticate': [AuthenticateRequest, Principal | null];
    'projects.get': [GetProjectRequest, ProjectView];
    'projects.getSettings': [GetProjectRequest, SettingsView];
    'projects.listPools': [Record<string, never>, ProjectView[]];
    'projects.authConfig': [GetProjectRequest, ProjectAuthConfig];
    // backfill
    'backfill.get': [GetBackfillRequest, BackfillView];
    'backfill.override': [OverrideBackfillRequest, BackfillView];
    // matchmaking
    'matchmaking.explain': [ExplainMatchmakingRequest, MatchmakingExplanation];
    'matchmaking.setBackfillAccepting': [SetBackfillAcceptingRequest, Record<string, never>];
    // servers
    'servers.start': [StartServerRequest, ServerView];
    'servers.stop': [StopServerRequest, ServerView];
    'servers.restart': [RestartServerRequest, ServerView];
    'servers.update': [UpdateServerRequest, ServerView];
    'servers.get': [GetServerRequest, ServerView];
    'servers.list': [ListServersRequest, ServerList];
    'servers.usesBuild': [UsesBuildRequest, { inUse: boolean }];
    'servers.logs': [ServerLogsRequest, LogPage];
    'servers.projectLogs': [ProjectLogsRequest, ProjectLogPage];
    'servers.logHistogram': [LogHistogramRequest, LogHistogram];
    'servers.metrics': [ServerMetricsRequest, ServerMetricsView];
    'servers.poolCapacity': [PoolCapacityRequest, PoolCapacityView];
    'servers.gameSelf': [GameSelfRequest, GameServerReply];
    'servers.gameReady': [GameReadyRequest, GameServerReply];
    'servers.gameStatus': [GameStatusRequest, GameServerReply];
    'servers.gameStop': [GameStopRequest, GameServerReply];
    'servers.reportState': [ReportServerStateRequest, ServerView];
    // lobbies
    'lobbies.create': [CreateLobbyRequest, LobbyView];
    'lobbies.browse': [BrowseLobbiesRequest, LobbyPage<LobbyView>];
    'lobbies.getMine': [PlayerLobbyRequest, LobbyView];
    'lobbies.join': [JoinLobbyRequest, LobbyView];
    'lobbies.leave': [PlayerLobbyRequest, LeftLobby];
    'lobbies.updateMyState': [UpdatePlayerStateRequest, LobbyView];
    'lobbies.updateSettings': [UpdateLobbySettingsRequest, LobbyView];
    'lobbies.kick': [TargetPlayerRequest, LobbyView];
    'lobbies.transferHost': [TargetPlayerRequest, LobbyView];
    'lobbies.start': [PlayerLobbyRequest, LobbyView];
    'lobbies.heartbeat': [PlayerLobbyRequest, Record<string, never>];
    'lobbies.endMatch': [PlayerLobbyRequest, LobbyView];
    'lobbies.close': [PlayerLobbyRequest, DeletedLobby];
    'lobbies.openStream': [OpenLobbyStreamRequest, OpenedLobbyStream];
    'lobbies.adminGet': [AdminLobbyRequest, LobbyView];
    'lobbies.adminDelete': [AdminLobbyRequest, DeletedLobby];
    'lobbies.startMatchmaking': [StartMatchmakingRequest, LobbyView];
    'lobbies.cancelMatchmaking': [PlayerLobbyRequest, LobbyView];
    'lobbies.confirmMatch': [PlayerLobbyRequest, LobbyView];
    'lobbies.declineMatch': [PlayerLobbyRequest, LobbyView];
    'lobbies.matchCommand': [MatchLobbyCommandRequest, { applied: boolean }];
    // Every service answers these under its own name (service-reports.ts, replay-handlers.ts).
    [subject: `health.${string}`]: [object, ServiceHealthReport];
    [subject: `parked.list.${string}`]: [ListParkedRequest, ListParkedReply];
    [subject: `parked.replay.${string}`]: [ReplayParkedRequest, ReplayResult];
  }
}


/** A subject with a known request and reply. */
export type BusSubject = keyof import('@spawnpoint/messaging').BusSubjects;
