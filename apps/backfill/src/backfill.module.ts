// The backfill service's composition root: the host, the match states and server reads its handlers
// share, and the routes that reach them (servesRoutes).
import { Module } from '@nestjs/common';
import { servesRoutes } from '@spawnpoint/platform';
import { LobbyConfigs } from '@spawnpoint/service-clients';
import { BackfillHost } from './backfill.host';
import { BackfillReadModel } from './backfill-read-model';
import { BackfillStates } from './backfill-states';
import { MatchServers } from './match-servers';
import { BACKFILL_HANDLERS, backfillRoutes } from './routes';

@Module({
  providers: [LobbyConfigs, BackfillReadModel, BackfillStates, MatchServers, BackfillHost, ...BACKFILL_HANDLERS, servesRoutes(BackfillHost, backfillRoutes)],
  exports: [BackfillHost],
})
export class BackfillModule {}
