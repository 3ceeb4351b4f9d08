// The log queries of a server (logs page, histogram, metrics) as query handlers over log-reads.ts.
import { Inject, Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { BusQuery, Platform, PLATFORM } from '@spawnpoint/platform';
import {
  LogHistogram, LogHistogramRequest, LogPage, ServerLogsRequest, ServerMetricsRequest, ServerMetricsView,
} from '@spawnpoint/proto';
import type { GameRuntime } from '@spawnpoint/runtime';
import { RUNTIME } from '../runtime';
import { ServerViews } from '../server-views';
import { LogReadDeps, serverLogHistogram, serverLogs, serverMetrics } from './log-reads';

export class GetServerLogs extends BusQuery<ServerLogsRequest, LogPage> {}
export class GetLogHistogram extends BusQuery<LogHistogramRequest, LogHistogram> {}
export class GetServerMetrics extends BusQuery<ServerMetricsRequest, ServerMetricsView> {}

/** What every log query reads with. */
@Injectable()
export class LogReads implements LogReadDeps {
  readonly db: LogReadDeps['db'];

  constructor(@Inject(PLATFORM) private readonly platform: Platform, @Inject(RUNTIME) readonly runtime: GameRuntime, private readonly views: ServerViews) {
    this.db = platform.db;
  }

  getServer(projectId: string, serverId: string) {
    return this.views.get({ projectId, serverId });
  }

  now(): Date {
    return this.platform.clock();
  }
}

/** A page of a server's log lines in a time window, oldest first. */
@Injectable()
@QueryHandler(GetServerLogs)
export class GetServerLogsHandler implements IQueryHandler<GetServerLogs> {
  constructor(private readonly reads: LogReads) {}
  execute({ request }: GetServerLogs): Promise<LogPage> {
    return serverLogs(this.reads, request);
  }
}

/** Line counts per level in buckets of a time window. */
@Injectable()
@QueryHandler(GetLogHistogram)
export class GetLogHistogramHandler implements IQueryHandler<GetLogHistogram> {
  constructor(private readonly reads: LogReads) {}
  execute({ request }: GetLogHistogram): Promise<LogHistogram> {
    return serverLogHistogram(this.reads, request);
  }
}

/** The server's live figures from the runtime. */
@Injectable()
@QueryHandler(GetServerMetrics)
export class GetServerMetricsHandler implements IQueryHandler<GetServerMetrics> {
  constructor(private readonly reads: LogReads) {}
  execute({ request }: GetServerMetrics): Promise<ServerMetricsView> {
    return serverMetrics(this.reads, request);
  }
}
