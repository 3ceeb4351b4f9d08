import { Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { BusCommand } from '@spawnpoint/platform';
import { SetBackfillAcceptingRequest } from '@spawnpoint/proto';
import { MatchIntents } from '../match-intents';

export class SetBackfillAccepting extends BusCommand<SetBackfillAcceptingRequest, Record<string, never>> {}

/**
 * The game opened or locked its roster (the backfill service asks before it records the override): the
 * match hears it on its own stream, in order with its fills, so a lock gives up a fill still in flight and
 * no fill joins after the lock was answered. A server started directly has no match stream: nothing to do.
 */
@Injectable()
@CommandHandler(SetBackfillAccepting)
export class SetBackfillAcceptingHandler implements ICommandHandler<SetBackfillAccepting> {
  constructor(private readonly intents: MatchIntents) {}

  async execute({ request: r }: SetBackfillAccepting): Promise<Record<string, never>> {
    const { state } = await this.intents.matches.load(r.matchId);
    if (state.status === 'none' || state.projectId !== r.projectId) return {};
    await this.intents.matches.handle(r.matchId, { type: 'SetBackfillAccepting', accepting: r.accepting, now: this.intents.now() }, { projectId: r.projectId });
    return {};
  }
}
