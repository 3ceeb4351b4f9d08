// Which bus subject becomes which command or query of the servers service.
import { route } from '@spawnpoint/platform';
import { SUBJECTS } from '@spawnpoint/proto';
import { GameReady, GameReadyHandler } from './commands/game-ready.handler';
import { GameStatus, GameStatusHandler } from './commands/game-status.handler';
import { GameStop, GameStopHandler } from './commands/game-stop.handler';
import { ReportServerState, ReportServerStateHandler } from './commands/report-server-state.handler';
import { RestartServer, RestartServerHandler } from './commands/restart-server.handler';
import { StartServer, StartServerHandler } from './commands/start-server.handler';
import { StopServer, StopServerHandler } from './commands/stop-server.handler';
import { UpdateServer, UpdateServerHandler } from './commands/update-server.handler';
import { GameSelf, GameSelfHandler } from './queries/game-self.handler';
import { GetLogHistogram, GetLogHistogramHandler } from './queries/get-log-histogram.handler';
import { GetPoolCapacity, GetPoolCapacityHandler } from './queries/get-pool-capacity.handler';
import { GetServer, GetServerHandler } from './queries/get-server.handler';
import { GetProjectLogs, GetProjectLogsHandler } from './queries/get-project-logs.handler';
import { GetServerLogs, GetServerLogsHandler } from './queries/get-server-logs.handler';
import { GetServerMetrics, GetServerMetricsHandler } from './queries/get-server-metrics.handler';
import { ListServers, ListServersHandler } from './queries/list-servers.handler';
import { UsesBuild, UsesBuildHandler } from './queries/uses-build.handler';

export const serversRoutes = () => [
  route(SUBJECTS.servers.start, StartServer),
  route(SUBJECTS.servers.stop, StopServer),
  route(SUBJECTS.servers.restart, RestartServer),
  route(SUBJECTS.servers.update, UpdateServer),
  route(SUBJECTS.servers.get, GetServer),
  route(SUBJECTS.servers.list, ListServers),
  route(SUBJECTS.servers.usesBuild, UsesBuild),
  route(SUBJECTS.servers.logs, GetServerLogs),
  route(SUBJECTS.servers.projectLogs, GetProjectLogs),
  route(SUBJECTS.servers.logHistogram, GetLogHistogram),
  route(SUBJECTS.servers.metrics, GetServerMetrics),
  route(SUBJECTS.servers.gameSelf, GameSelf),
  route(SUBJECTS.servers.gameReady, GameReady),
  route(SUBJECTS.servers.gameStatus, GameStatus),
  route(SUBJECTS.servers.gameStop, GameStop),
  route(SUBJECTS.servers.reportState, ReportServerState),
  route(SUBJECTS.servers.poolCapacity, GetPoolCapacity),
];

export const SERVERS_HANDLERS = [
  StartServerHandler, StopServerHandler, RestartServerHandler, UpdateServerHandler,
  GetServerHandler, ListServersHandler, UsesBuildHandler, GetServerLogsHandler, GetProjectLogsHandler, GetLogHistogramHandler, GetServerMetricsHandler,
  GameSelfHandler, GameReadyHandler, GameStatusHandler, GameStopHandler, ReportServerStateHandler, GetPoolCapacityHandler,
];
