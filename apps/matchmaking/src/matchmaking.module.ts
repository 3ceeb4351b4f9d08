// The matchmaking service's composition root: the host, the queue, the clients its workflow uses, and the
// routes that reach its handlers (servesRoutes).
import { Module } from '@nestjs/common';
import { servesRoutes } from '@spawnpoint/platform';
import { GameServers, LiveQueueStats, LobbyConfigs } from '@spawnpoint/service-clients';
import { MatchIntents } from './match-intents';
import { MatchmakingHost } from './matchmaking.host';
import { MatchmakingReadModel } from './matchmaking-read-model';
import { OpenMatches } from './open-matches';
import { QueueBookProxy } from './queue-book-proxy';
import { MatchStates } from './match-states';
import { MATCHMAKING_HANDLERS, matchmakingRoutes } from './routes';

@Module({
  providers: [
    { provide: QueueBookProxy, useFactory: () => new QueueBookProxy() }, { provide: OpenMatches, useFactory: () => new OpenMatches() },
    { provide: LiveQueueStats, useFactory: () => new LiveQueueStats() },
    LobbyConfigs, GameServers, MatchmakingReadModel, MatchStates, MatchIntents, MatchmakingHost, ...MATCHMAKING_HANDLERS, servesRoutes(MatchmakingHost, matchmakingRoutes),
  ],
  exports: [MatchmakingHost],
})
export class MatchmakingModule {}
