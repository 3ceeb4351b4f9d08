// The backfill service (decisions.md "Backfill"): a game server's match, `backfill-<match id>`, read and
// overridden by the game with the server key. The match's status follows its server (read from the
// servers service on each request); the overrides are this service's events. Routes in routes.ts.
import { Inject, Injectable } from '@nestjs/common';
import { Unsubscribe } from '@spawnpoint/messaging';
import { LobbyConfigs, Platform, PLATFORM, ServiceHost } from '@spawnpoint/platform';
import { BackfillReadModel } from './backfill-read-model';

@Injectable()
export class BackfillHost extends ServiceHost {
  private readonly unsubscribes: Unsubscribe[] = [];

  constructor(@Inject(PLATFORM) platform: Platform, readModel: BackfillReadModel, private readonly configs: LobbyConfigs) {
    super(platform, readModel, 'backfill', ['backfill']);
  }

  protected readModels() {
    return [];
  }

  protected override async starting(): Promise<void> {
    this.unsubscribes.push(await this.configs.follow('backfill-projects'));
  }

  protected override async stopping(): Promise<void> {
    for (const u of this.unsubscribes.splice(0)) await u().catch(() => undefined);
  }
}
