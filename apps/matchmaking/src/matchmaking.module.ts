// The matchmaking service's composition root: the host, the queue and the clients its workflow uses.
import { Module } from '@nestjs/common';
import { GameServers, LobbyConfigs } from '@spawnpoint/platform';
import { MatchIntents } from './match-intents';
import { MatchmakingHost } from './matchmaking.host';
import { MatchmakingReadModel } from './matchmaking-read-model';
import { QueueBook } from './queue-book';

@Module({
  providers: [{ provide: QueueBook, useFactory: () => new QueueBook() }, LobbyConfigs, GameServers, MatchmakingReadModel, MatchIntents, MatchmakingHost],
  exports: [MatchmakingHost],
})
export class MatchmakingModule {}
