// Server logs, log histogram and machine metrics: requests to the servers service and its replies,
// shaped exactly as the HTTP API returns them.

export type LogLevelName = 'info' | 'warn' | 'error';

/** GET /v3/servers/{id}/logs. Times are ISO 8601, relative (-30s, -15m, -1h, -2d) or `now`. */
export interface ServerLogsRequest {
  projectId: string;
  serverId: string;
  start_time?: string;
  end_time?: string;
  limit?: number;
  search?: string;
  next_token?: string;
}

export interface LogLineView { timestamp: string; message: string; level: LogLevelName; instance_id: string; region: string }
export interface LogPage { logs: LogLineView[]; next_token: string | null }

/** GET /v3/servers/{id}/log-histogram. */
export interface LogHistogramRequest {
  projectId: string;
  serverId: string;
  start_time?: string;
  end_time?: string;
  step?: number;
  search?: string;
}

export interface LogHistogramBucket { t: string; info: number; warn: number; error: number }
/** buckets oldest → newest, empty bins omitted; step = the bin width used; window = the resolved window. */
export interface LogHistogram { buckets: LogHistogramBucket[]; step: number; window: { start: string; end: string } }

/** GET /v3/servers/{id}/metrics. */
export interface ServerMetricsRequest { projectId: string; serverId: string }
export interface ServerMetricsView {
  cpu_percent: number | null;
  memory_bytes: number | null;
  memory_limit_bytes: number | null;
  network_rx_bytes: number | null;
  network_tx_bytes: number | null;
  sampled_at: string;
}
