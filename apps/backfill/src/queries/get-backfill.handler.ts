import { Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { backfillView, BackfillView } from '@spawnpoint/domain';
import { BusQuery } from '@spawnpoint/platform';
import { GetBackfillRequest } from '@spawnpoint/proto';
import { BackfillStates } from '../backfill-states';
import { MatchServers } from '../match-servers';

export class GetBackfill extends BusQuery<GetBackfillRequest, BackfillView> {}

/** The match of a game server as its backfill stands (GET /v3/servers/{id}/backfill). */
@Injectable()
@QueryHandler(GetBackfill)
export class GetBackfillHandler implements IQueryHandler<GetBackfill> {
  constructor(private readonly servers: MatchServers, private readonly states: BackfillStates) {}

  async execute({ request: r }: GetBackfill): Promise<BackfillView> {
    const { server, roster } = await this.servers.read(r.projectId, r.serverId);
    const { state } = await this.states.load(server.matchId);
    return backfillView(state, server, roster, this.states.now());
  }
}
