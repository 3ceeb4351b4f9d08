import { Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { BusQuery } from '@spawnpoint/platform';
import { ProjectLogPage, ProjectLogsRequest } from '@spawnpoint/proto';
import { LogReads } from '../logs/log-read-deps';
import { projectLogs } from '../logs/log-reads';

export class GetProjectLogs extends BusQuery<ProjectLogsRequest, ProjectLogPage> {}

/** A page of the log lines of every server of a project in a time window, oldest first. */
@Injectable()
@QueryHandler(GetProjectLogs)
export class GetProjectLogsHandler implements IQueryHandler<GetProjectLogs> {
  constructor(private readonly reads: LogReads) {}

  execute({ request }: GetProjectLogs): Promise<ProjectLogPage> {
    return projectLogs(this.reads, request);
  }
}
