import { Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { BusQuery } from '@spawnpoint/platform';
import { LogPage, ServerLogsRequest } from '@spawnpoint/proto';
import { LogReads } from '../logs/log-read-deps';
import { serverLogs } from '../logs/log-reads';

export class GetServerLogs extends BusQuery<ServerLogsRequest, LogPage> {}

/** A page of a server's log lines in a time window, oldest first. */
@Injectable()
@QueryHandler(GetServerLogs)
export class GetServerLogsHandler implements IQueryHandler<GetServerLogs> {
  constructor(private readonly reads: LogReads) {}

  execute({ request }: GetServerLogs): Promise<LogPage> {
    return serverLogs(this.reads, request);
  }
}
