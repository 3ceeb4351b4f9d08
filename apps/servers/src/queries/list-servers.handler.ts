import { Inject, Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { invalid } from '@spawnpoint/domain';
import { BusQuery, decodeTimeCursor, encodeTimeCursor, Platform, PLATFORM } from '@spawnpoint/platform';
import { ListServersRequest, ServerList } from '@spawnpoint/proto';
import { ClaimVisibility } from '../claim-visibility';
import { rowShape, serverView } from '../server-view';
import { UUID } from '../server-views';

export class ListServers extends BusQuery<ListServersRequest, ServerList> {}

/** A project's servers, newest first, filtered, in pages joined by next_token. */
@Injectable()
@QueryHandler(ListServers)
export class ListServersHandler implements IQueryHandler<ListServers> {
  constructor(@Inject(PLATFORM) private readonly platform: Platform, private readonly claims: ClaimVisibility) {}

  async execute({ request: req }: ListServers): Promise<ServerList> {
    await this.claims.seen();
    const limit = req.limit ?? 50;
    const cursor = req.next_token ? decodeTimeCursor(req.next_token, UUID) : null;
    if (req.next_token && !cursor) throw invalid('invalid next_token', [{ loc: ['query', 'next_token'], msg: 'invalid pagination token', type: 'value_error' }]);
    const rows = await this.platform.db.server.findMany({
      where: {
        projectId: req.projectId,
        ...(req.status ? { status: req.status } : {}),
        ...(req.region ? { region: req.region } : {}),
        ...(req.version_tag ? { versionTag: req.version_tag } : {}),
        ...(req.match_id ? { matchId: req.match_id } : {}),
        ...(cursor ? { OR: [{ createdAt: { lt: cursor.at } }, { createdAt: cursor.at, id: { lt: cursor.id } }] } : {}),
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: limit + 1,
    });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { servers: page.map((r) => serverView(rowShape(r))), next_token: rows.length > limit && last ? encodeTimeCursor({ at: last.createdAt, id: last.id }) : null };
  }
}
