import { Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { AdminController } from './controllers/admin.controller';
import { BuildsController } from './controllers/builds.controller';
import { ConsoleController } from './controllers/console.controller';
import { DocsController } from './controllers/docs.controller';
import { GameController } from './controllers/game.controller';
import { HealthController } from './controllers/health.controller';
import { LobbiesController } from './controllers/lobbies.controller';
import { LobbyMatchmakingController } from './controllers/lobby-matchmaking.controller';
import { ParkedEventsController } from './controllers/parked-events.controller';
import { ProjectLobbyEventsController } from './controllers/project-lobby-events.controller';
import { ProjectsController } from './controllers/projects.controller';
import { PoolsController } from './controllers/pools.controller';
import { ServerLogsController } from './controllers/server-logs.controller';
import { ServersController } from './controllers/servers.controller';
import { RootHealthController } from './controllers/root-health.controller';
import { V2BuildsController } from './controllers/v2-builds.controller';
import { V2ProjectController } from './controllers/v2-project.controller';
import { V2ServersController } from './controllers/v2-servers.controller';
import { KeyAuthenticator } from './http/auth';
import { ErrorFilter } from './http/error-filter';
import { AccessGuard } from './http/guard';
import { RateLimits } from './http/rate-limits';
import { LobbyStreams, ProjectLobbyStreams, StreamQuota } from './lobby-streams';
import { PlayerIdentity } from './players';

@Module({
  controllers: [HealthController, DocsController, AdminController, ProjectsController, BuildsController, ServersController, ServerLogsController, PoolsController, GameController, LobbiesController, LobbyMatchmakingController, ProjectLobbyEventsController, V2ServersController, V2BuildsController, V2ProjectController, RootHealthController, ParkedEventsController, ConsoleController],
  providers: [KeyAuthenticator, RateLimits, AccessGuard, PlayerIdentity, StreamQuota, LobbyStreams, ProjectLobbyStreams, { provide: APP_FILTER, useClass: ErrorFilter }],
})
export class GatewayModule {}
