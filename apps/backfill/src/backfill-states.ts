// The match backfill states of this process (StateCache: read on from the cached revision) and the clock.
import { Inject, Injectable } from '@nestjs/common';
import { BackfillCommand, backfillDecider, BackfillEvent, BackfillState } from '@spawnpoint/domain';
import { Platform, PLATFORM, StateCache } from '@spawnpoint/platform';

@Injectable()
export class BackfillStates {
  readonly matches: StateCache<BackfillCommand, BackfillEvent, BackfillState>;

  constructor(@Inject(PLATFORM) private readonly platform: Platform) {
    this.matches = new StateCache(platform.store, backfillDecider);
  }

  now(): string {
    return this.platform.clock().toISOString();
  }
}
