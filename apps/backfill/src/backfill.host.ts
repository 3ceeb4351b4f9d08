// The backfill service (decisions.md "Backfill"): a game server's match, `backfill-<match id>`, read and
// overridden by the game with the server key. The match's status follows its server (read from the
// servers service on each request); the overrides and the roster changes (the backfill-roster workflow,
// from the match's events) are this service's events. Routes in routes.ts.
import { Inject, Injectable } from '@nestjs/common';
import { backfillRosterWorkflow } from '@spawnpoint/domain';
import { Unsubscribe } from '@spawnpoint/messaging';
import { IntentDispatcher, routeIntents, Platform, PLATFORM, ServiceHost, unlessRefused } from '@spawnpoint/platform';
import { LobbyConfigs } from '@spawnpoint/service-clients';
import { BackfillReadModel } from './backfill-read-model';
import { BackfillStates } from './backfill-states';

@Injectable()
export class BackfillHost extends ServiceHost {
  private readonly unsubscribes: Unsubscribe[] = [];

  constructor(@Inject(PLATFORM) platform: Platform, readModel: BackfillReadModel, private readonly configs: LobbyConfigs, private readonly states: BackfillStates) {
    super(platform, readModel, 'backfill', ['backfill']);
  }

  protected readModels() {
    return [];
  }

  protected override workflows() {
    return [backfillRosterWorkflow];
  }

  /** A roster change on the match's record, once per key. */
  protected override dispatcher(): IntentDispatcher {
    return routeIntents('backfill', {
      aggregates: { backfill: (matchId, command, intent) => unlessRefused(this.states.handle(matchId, command, { key: intent.key, projectId: intent.target.projectId ?? undefined })) },
    });
  }

  protected override async starting(): Promise<void> {
    this.unsubscribes.push(await this.configs.follow('backfill-projects'));
  }

  protected override async stopping(): Promise<void> {
    for (const u of this.unsubscribes.splice(0)) await u().catch(() => undefined);
  }
}
