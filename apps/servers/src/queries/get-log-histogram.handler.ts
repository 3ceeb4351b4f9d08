import { Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { BusQuery } from '@spawnpoint/platform';
import { LogHistogram, LogHistogramRequest } from '@spawnpoint/proto';
import { LogReads } from '../logs/log-read-deps';
import { serverLogHistogram } from '../logs/log-reads';

export class GetLogHistogram extends BusQuery<LogHistogramRequest, LogHistogram> {}

/** Line counts per level in buckets of a time window. */
@Injectable()
@QueryHandler(GetLogHistogram)
export class GetLogHistogramHandler implements IQueryHandler<GetLogHistogram> {
  constructor(private readonly reads: LogReads) {}

  execute({ request }: GetLogHistogram): Promise<LogHistogram> {
    return serverLogHistogram(this.reads, request);
  }
}
