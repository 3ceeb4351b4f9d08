// A match's backfill record (`backfill-<match id>`), written through its one write path (Aggregate.handle),
// and the clock.
import { Inject, Injectable } from '@nestjs/common';
import { BackfillCommand, backfillDecider, BackfillEvent, BackfillState, backfillStream } from '@spawnpoint/domain';
import { Aggregate, Platform, PLATFORM } from '@spawnpoint/platform';

@Injectable()
export class BackfillStates extends Aggregate<BackfillCommand, BackfillEvent, BackfillState> {
  constructor(@Inject(PLATFORM) private readonly platform: Platform) {
    super(platform.store, backfillDecider, backfillStream);
  }

  now(): string {
    return this.platform.clock().toISOString();
  }
}
