// The claim aggregate (claim.ts in the domain: one lobby per player per config, one live lobby per invite
// code, one search per player), keyed by its stream, through its one write path (Aggregate.handle).
import { Inject, Injectable } from '@nestjs/common';
import { ClaimCommand, claimDecider, ClaimEvent, ClaimState } from '@spawnpoint/domain';
import { Aggregate, Platform, PLATFORM } from '@spawnpoint/platform';
import { logger } from '@spawnpoint/logging';

const log = logger('lobbies');

@Injectable()
export class ClaimStates extends Aggregate<ClaimCommand, ClaimEvent, ClaimState> {
  constructor(@Inject(PLATFORM) private readonly platform: Platform) {
    super(platform.store, claimDecider, (stream) => stream);
  }

  /** Best effort: a release lost to a crash is healed by the next claim's holder check. */
  async release(stream: string, holder: string): Promise<void> {
    await this.handle(stream, { type: 'Release', key: stream, holder, now: this.platform.clock().toISOString() }).catch((err) => {
      log.error(`lobbies: could not release ${stream}: ${(err as Error).message}`);
    });
  }
}
