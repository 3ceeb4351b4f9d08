import { Inject, Injectable } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { backfillView, BackfillView } from '@spawnpoint/domain';
import { BusCommand, Platform, PLATFORM } from '@spawnpoint/platform';
import { OverrideBackfillRequest, SetBackfillAcceptingRequest, SUBJECTS } from '@spawnpoint/proto';
import { BackfillStates } from '../backfill-states';
import { MatchServers } from '../match-servers';

export class OverrideBackfill extends BusCommand<OverrideBackfillRequest, BackfillView> {}

/**
 * The game opens or locks its match's backfill (PATCH /v3/servers/{id}/backfill). Appended at the revision
 * read (execute retries a lost race), so concurrent overrides each get their own roster_version. Where the
 * engine fills the game, the match hears it first (matchmaking.setBackfillAccepting): a lock gives up a
 * fill in flight there, so no lobby joins a game after its lock was answered.
 */
@Injectable()
@CommandHandler(OverrideBackfill)
export class OverrideBackfillHandler implements ICommandHandler<OverrideBackfill> {
  constructor(@Inject(PLATFORM) private readonly platform: Platform, private readonly servers: MatchServers, private readonly states: BackfillStates) {}

  async execute({ request: r }: OverrideBackfill): Promise<BackfillView> {
    const { server, roster } = await this.servers.read(r.projectId, r.serverId);
    const now = this.states.now();
    const { body } = r;
    if (server.engineManaged && !server.stopped) {
      const told: SetBackfillAcceptingRequest = { projectId: r.projectId, matchId: server.matchId, accepting: body.accepting };
      await this.platform.bus.request(SUBJECTS.matchmaking.setBackfillAccepting, told);
    }
    const ran = await this.states.handle(server.matchId, {
      type: 'OverrideBackfill', server, accepting: body.accepting, ...(body.skillBand ? { skillBand: { ...body.skillBand } } : {}), now,
    }, { projectId: r.projectId });
    return backfillView(ran.state, server, roster, now);
  }
}
