// The lobbies service's composition root: the host, the state its use cases share, the handlers, and the
// routes that reach them (servesRoutes).
import { Module } from '@nestjs/common';
import { Platform, PLATFORM, servesRoutes } from '@spawnpoint/platform';
import { GameServers, LobbyConfigs } from '@spawnpoint/service-clients';
import { LobbiesHost } from './lobbies.host';
import { ClaimStates } from './claim-states';
import { LobbyBroadcast } from './lobby-broadcast';
import { LobbyClaims } from './lobby-claims';
import { LobbyIntents } from './lobby-intents';
import { LobbyLaunch } from './lobby-launch';
import { LobbyReadModel } from './lobby-read-model';
import { LobbyStates } from './lobby-states';
import { LobbyAggregate } from './lobby-aggregate';
import { Presence } from './presence';
import { LOBBIES_HANDLERS, lobbiesRoutes } from './routes';
import { LobbySweepTarget } from './sweep-target';

const presence = { provide: Presence, inject: [PLATFORM], useFactory: (p: Platform) => new Presence(() => p.clock().getTime()) };

@Module({
  providers: [
    presence, LobbyConfigs, LobbyReadModel, LobbyStates, LobbyClaims, LobbyBroadcast, GameServers, ClaimStates, LobbyAggregate, LobbyIntents, LobbyLaunch,
    LobbySweepTarget, LobbiesHost, ...LOBBIES_HANDLERS, servesRoutes(LobbiesHost, lobbiesRoutes),
  ],
  exports: [LobbiesHost],
})
export class LobbiesModule {}
