// Server logs, log histogram and machine metrics: HTTP queries, requests to the servers service and its
// replies, shaped exactly as the HTTP API returns them.
import { SUBJECTS } from './subjects';
import { BusRequest } from './contracts';
import { Enum, Int, Nested, NestedArray, Num, Str, UuidField } from './validation/fields';

export type LogLevelName = 'info' | 'warn' | 'error';

// Times are checked by the servers service (they depend on its `now`).
const TIME_FORMS = 'ISO 8601 (e.g. 2026-11-21T10:00:00Z; no offset = UTC), relative to now (-30s, -15m, -1h, -2d) or now';
const timeDoc = (fallback: string) => `${TIME_FORMS}. Default: ${fallback}`;
const SEARCH_DOC = 'Case-insensitive substring of the message (literal: no wildcards)';

/** GET /v3/servers/{id}/logs. */
export class LogsQuery {
  @Str({ min: 1, max: 64, optional: true, description: timeDoc('24 hours before end_time') }) start_time?: string;
  @Str({ min: 1, max: 64, optional: true, description: timeDoc('now') }) end_time?: string;
  @Int({ min: 1, max: 1000, optional: true, coerce: true, description: 'Lines per page, default 200' }) limit?: number;
  @Str({ max: 256, optional: true, description: SEARCH_DOC }) search?: string;
  @Str({ max: 512, optional: true }) next_token?: string;
}

/** GET /v3/servers/{id}/log-histogram. */
export class LogHistogramQuery {
  @Str({ min: 1, max: 64, optional: true, description: timeDoc('1 hour before end_time') }) start_time?: string;
  @Str({ min: 1, max: 64, optional: true, description: timeDoc('now') }) end_time?: string;
  @Int({ min: 5, max: 3600, optional: true, coerce: true, description: 'Bin width in seconds, default 60' }) step?: number;
  @Str({ max: 256, optional: true, description: SEARCH_DOC }) search?: string;
}

@BusRequest(SUBJECTS.servers.logs)
export class ServerLogsRequest {
  @Str() projectId!: string;
  @Str() serverId!: string;
  @Str({ optional: true }) start_time?: string;
  @Str({ optional: true }) end_time?: string;
  @Int({ optional: true }) limit?: number;
  @Str({ optional: true }) search?: string;
  @Str({ optional: true }) next_token?: string;
}

export class LogLineView {
  @Str() timestamp!: string;
  @Str() message!: string;
  @Enum(['info', 'warn', 'error']) level!: LogLevelName;
  @UuidField() instance_id!: string;
  @Str() region!: string;
}
export class LogPage {
  @NestedArray(() => LogLineView) logs!: LogLineView[];
  @Str({ nullable: true }) next_token!: string | null;
}

/** GET /v3/projects/logs: the lines of every server of the project (the hosted service's route). */
export class ProjectLogsQuery {
  @Str({ min: 1, max: 64, description: `Required. ${TIME_FORMS}` }) start_time!: string;
  @Str({ min: 1, max: 64, optional: true, description: timeDoc('now') }) end_time?: string;
  @Int({ min: 1, max: 1000, optional: true, coerce: true, description: 'Lines per page, default 500' }) limit?: number;
  @Str({ max: 512, optional: true }) next_token?: string;
}

@BusRequest(SUBJECTS.servers.projectLogs)
export class ProjectLogsRequest {
  @Str() projectId!: string;
  @Str() start_time!: string;
  @Str({ optional: true }) end_time?: string;
  @Int({ optional: true }) limit?: number;
  @Str({ optional: true }) next_token?: string;
}

/** A project log line: a server's line with the server's name. */
export class ProjectLogLineView extends LogLineView {
  @Str() server_name!: string;
}
export class ProjectLogPage {
  @NestedArray(() => ProjectLogLineView, { description: 'Oldest first, across the servers' }) logs!: ProjectLogLineView[];
  @Str({ nullable: true, description: 'Pass it back (with the same other parameters) for the next page; null on the last' }) next_token!: string | null;
}

@BusRequest(SUBJECTS.servers.logHistogram)
export class LogHistogramRequest {
  @Str() projectId!: string;
  @Str() serverId!: string;
  @Str({ optional: true }) start_time?: string;
  @Str({ optional: true }) end_time?: string;
  @Int({ optional: true }) step?: number;
  @Str({ optional: true }) search?: string;
}

export class LogHistogramBucket {
  @Str() t!: string;
  @Int({ min: 0 }) info!: number;
  @Int({ min: 0 }) warn!: number;
  @Int({ min: 0 }) error!: number;
}
export class LogWindow { @Str() start!: string; @Str() end!: string }
/** buckets oldest → newest, empty bins omitted; step = the bin width used; window = the resolved window. */
export class LogHistogram {
  @NestedArray(() => LogHistogramBucket, { description: 'Oldest first; empty bins omitted' }) buckets!: LogHistogramBucket[];
  @Int({ description: 'Bin width used (wider than asked when the window would need over 10,000 bins)' }) step!: number;
  @Nested(() => LogWindow) window!: { start: string; end: string };
}

/** GET /v3/servers/{id}/metrics. */
@BusRequest(SUBJECTS.servers.metrics)
export class ServerMetricsRequest { @Str() projectId!: string; @Str() serverId!: string }
export class ServerMetricsView {
  @Num({ nullable: true }) cpu_percent!: number | null;
  @Int({ min: 0, nullable: true }) memory_bytes!: number | null;
  @Int({ min: 0, nullable: true }) memory_limit_bytes!: number | null;
  @Int({ min: 0, nullable: true }) network_rx_bytes!: number | null;
  @Int({ min: 0, nullable: true }) network_tx_bytes!: number | null;
  @Str() sampled_at!: string;
}
