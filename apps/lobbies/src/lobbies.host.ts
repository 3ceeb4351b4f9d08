// The lobbies service: the Lobby aggregate over the bus. This class runs its read model and relay and its
// lifecycle: presence shared between replicas, the consumer of project events, the sweeper, and three
// workflows (ADR-0010) dispatched by LobbyIntents: lobby-launch (a launch completed after a crash, a lost
// one handed back after a minute), lobby-server (a lobby follows its game server) and lobby-queue (a
// search's timeout, even while the matcher is down).
// Each use case is a handler in commands/ or queries/, reached over the bus by the routes in routes.ts;
// the state they share is in the providers beside this file (lobby-states, lobby-aggregate, lobby-launch ...).
import { Inject, Injectable } from '@nestjs/common';
import { Unsubscribe } from '@spawnpoint/messaging';
import { PLATFORM, Platform, ServiceHost } from '@spawnpoint/platform';
import { LobbyConfigs } from '@spawnpoint/service-clients';
import { lobbyGauges } from './lobby-gauges';
import { lobbyLaunchWorkflow, lobbyQueueWorkflow, lobbyServerWorkflow } from '@spawnpoint/domain';
import { LobbyPresence, SUBJECTS, validListener } from '@spawnpoint/proto';
import { lobbiesProjection } from './lobbies.projection';
import { LobbyIntents } from './lobby-intents';
import { LobbyReadModel } from './lobby-read-model';
import { liveQueueStats } from './lobby-views';
import { Presence } from './presence';
import { LobbySweeper } from './sweeper';
import { LobbySweepTarget } from './sweep-target';

@Injectable()
export class LobbiesHost extends ServiceHost {
  private readonly unsubscribes: Unsubscribe[] = [];
  private sweeper: LobbySweeper | null = null;

  constructor(
    @Inject(PLATFORM) platform: Platform, readModel: LobbyReadModel, private readonly presence: Presence,
    private readonly configs: LobbyConfigs, private readonly intents: LobbyIntents, private readonly sweepTarget: LobbySweepTarget,
  ) {
    super(platform, readModel, 'lobbies', ['lobby']);
  }

  protected readModels() {
    return [lobbiesProjection()];
  }

  protected override gauges() {
    return lobbyGauges(this.db);
  }

  protected override workflows() {
    return [lobbyServerWorkflow, lobbyLaunchWorkflow, lobbyQueueWorkflow];
  }

  protected override dispatcher() {
    return this.intents.dispatch;
  }

  protected override async starting(): Promise<void> {
    const nowMs = () => this.clock().getTime();
    this.unsubscribes.push(
      await this.bus.listen(SUBJECTS.lobbies.presence, validListener<LobbyPresence>(SUBJECTS.lobbies.presence, (p) => this.presence.record(p.entries, nowMs()))),
      await this.configs.follow('lobbies-projects'),
      await liveQueueStats.follow(this.bus),
    );
    this.sweeper = new LobbySweeper(this.sweepTarget, this.db, this.bus, this.presence, this.config.lobbySweepMs, nowMs);
    this.sweeper.start();
  }

  protected override async stopping(): Promise<void> {
    await this.sweeper?.stop();
    for (const u of this.unsubscribes.splice(0)) await u().catch(() => undefined);
  }
}
