// The match aggregate's one write path (Aggregate.handle): the matcher's proposals, the workflow's intents
// and the game's backfill switch all decide and append here.
import { Inject, Injectable } from '@nestjs/common';
import { MatchCommand, matchDecider, MatchEvent, MatchState, matchStream } from '@spawnpoint/domain';
import { Aggregate, Platform, PLATFORM } from '@spawnpoint/platform';

@Injectable()
export class MatchStates extends Aggregate<MatchCommand, MatchEvent, MatchState> {
  constructor(@Inject(PLATFORM) platform: Platform) {
    super(platform.store, matchDecider, matchStream);
  }
}
