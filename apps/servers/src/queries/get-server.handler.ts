import { Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { BusQuery } from '@spawnpoint/platform';
import { GetServerRequest, ServerView } from '@spawnpoint/proto';
import { ServerViews } from '../server-views';

export class GetServer extends BusQuery<GetServerRequest, ServerView> {}

/** One server as its project sees it (cached; 404 for another project's). */
@Injectable()
@QueryHandler(GetServer)
export class GetServerHandler implements IQueryHandler<GetServer> {
  constructor(private readonly views: ServerViews) {}

  execute({ request }: GetServer): Promise<ServerView> {
    return this.views.get(request);
  }
}
