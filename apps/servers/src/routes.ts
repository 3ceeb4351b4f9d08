// Which bus subject becomes which command or query of the servers service.
import { route } from '@spawnpoint/platform';
import { SUBJECTS } from '@spawnpoint/proto';
import { RestartServer, RestartServerHandler } from './commands/restart-server.handler';
import { StartServer, StartServerHandler } from './commands/start-server.handler';
import { StopServer, StopServerHandler } from './commands/stop-server.handler';
import { UpdateServer, UpdateServerHandler } from './commands/update-server.handler';
import { GetLogHistogram, GetLogHistogramHandler } from './queries/get-log-histogram.handler';
import { GetServer, GetServerHandler } from './queries/get-server.handler';
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
  route(SUBJECTS.servers.logHistogram, GetLogHistogram),
  route(SUBJECTS.servers.metrics, GetServerMetrics),
];

export const SERVERS_HANDLERS = [
  StartServerHandler, StopServerHandler, RestartServerHandler, UpdateServerHandler,
  GetServerHandler, ListServersHandler, UsesBuildHandler, GetServerLogsHandler, GetLogHistogramHandler, GetServerMetricsHandler,
];
