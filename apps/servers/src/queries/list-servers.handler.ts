import { Inject, Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { BusQuery, Platform, PLATFORM } from '@spawnpoint/platform';
import { ListServersRequest, ServerList } from '@spawnpoint/proto';
import { ClaimVisibility } from '../claim-visibility';
import { rowShape, serverView } from '../server-view';

export class ListServers extends BusQuery<ListServersRequest, ServerList> {}

export const LIST_LIMIT = 50;

/** The statuses a list shows: the one asked for, else running (and launching with include_launching), as the hosted service lists. */
function statuses(req: ListServersRequest): string[] {
  if (req.status) return [req.status];
  return req.include_launching ? ['launching', 'running'] : ['running'];
}

/** A project's servers, newest first, filtered, paged by offset and limit with the total. */
@Injectable()
@QueryHandler(ListServers)
export class ListServersHandler implements IQueryHandler<ListServers> {
  constructor(@Inject(PLATFORM) private readonly platform: Platform, private readonly claims: ClaimVisibility) {}

  async execute({ request: req }: ListServers): Promise<ServerList> {
    await this.claims.seen();
    const limit = req.limit ?? LIST_LIMIT;
    const offset = req.offset ?? 0;
    const where = {
      projectId: req.projectId,
      status: { in: statuses(req) },
      // Unclaimed pool servers are the pool's stock, not the project's games: shown only when asked for.
      ...(req.include_pool ? {} : { OR: [{ isPoolServer: false }, { poolClaimedAt: { not: null } }] }),
      ...(req.region ? { region: req.region } : {}),
      ...(req.version_tag ? { versionTag: req.version_tag } : {}),
      ...(req.match_id ? { matchId: req.match_id } : {}),
    };
    const [total, rows] = await Promise.all([
      this.platform.db.server.count({ where }),
      this.platform.db.server.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: offset, take: limit }),
    ]);
    return { total, servers: rows.map((r) => serverView(rowShape(r))), limit, offset, has_more: offset + rows.length < total };
  }
}
