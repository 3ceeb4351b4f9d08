import { Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { BusQuery } from '@spawnpoint/platform';
import { ServerMetricsRequest, ServerMetricsView } from '@spawnpoint/proto';
import { LogReads } from '../logs/log-read-deps';
import { serverMetrics } from '../logs/log-reads';

export class GetServerMetrics extends BusQuery<ServerMetricsRequest, ServerMetricsView> {}

/** The server's live figures from the runtime. */
@Injectable()
@QueryHandler(GetServerMetrics)
export class GetServerMetricsHandler implements IQueryHandler<GetServerMetrics> {
  constructor(private readonly reads: LogReads) {}

  execute({ request }: GetServerMetrics): Promise<ServerMetricsView> {
    return serverMetrics(this.reads, request);
  }
}
