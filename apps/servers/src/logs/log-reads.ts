// A server's logs (and a project's), log histogram and metrics: they need only the read models, the runtime, a
// project-checked server lookup and the clock. Parameters are checked before the lookup: a bad request
// is 422 whoever's server it names.
import {
  LogHistogram, LogHistogramRequest, LogPage, ProjectLogPage, ProjectLogsRequest, ServerLogsRequest, ServerMetricsRequest, ServerMetricsView, ServerView,
} from '@spawnpoint/proto';
import type { ReadModels } from '@spawnpoint/read-models';
import type { GameRuntime } from '@spawnpoint/runtime';
import { queryLogHistogram, queryLogs, queryProjectLogs } from './log-queries';
import { checkHistogramQuery, checkLogsQuery, checkProjectLogsQuery } from './log-window';

export interface LogReadDeps {
  db: ReadModels;
  runtime: Pick<GameRuntime, 'metrics'>;
  /** The server as its project sees it; throws 404 for a missing server or another project's. */
  getServer(projectId: string, serverId: string): Promise<ServerView>;
  now(): Date;
}

export async function serverLogs(deps: LogReadDeps, r: ServerLogsRequest): Promise<LogPage> {
  const q = checkLogsQuery(r, deps.now());
  const server = await deps.getServer(r.projectId, r.serverId);
  return queryLogs(deps.db, server, q);
}

/** Every server's lines of a project, oldest first (no server lookup: the project is the caller's own). */
export async function projectLogs(deps: Pick<LogReadDeps, 'db' | 'now'>, r: ProjectLogsRequest): Promise<ProjectLogPage> {
  return queryProjectLogs(deps.db, r.projectId, checkProjectLogsQuery(r, deps.now()));
}

export async function serverLogHistogram(deps: LogReadDeps, r: LogHistogramRequest): Promise<LogHistogram> {
  const q = checkHistogramQuery(r, deps.now());
  const server = await deps.getServer(r.projectId, r.serverId);
  return queryLogHistogram(deps.db, server.instance_id, q);
}

/** Live figures from the runtime; all null (sampled now) for a stopped server or one this runtime does not run. */
export async function serverMetrics(deps: LogReadDeps, r: ServerMetricsRequest): Promise<ServerMetricsView> {
  const server = await deps.getServer(r.projectId, r.serverId);
  const m = server.status === 'stopped' ? null : await deps.runtime.metrics(server.instance_id);
  if (!m) {
    return { cpu_percent: null, memory_bytes: null, memory_limit_bytes: null, network_rx_bytes: null, network_tx_bytes: null, sampled_at: deps.now().toISOString() };
  }
  const { cpu_percent, memory_bytes, memory_limit_bytes, network_rx_bytes, network_tx_bytes, sampled_at } = m;
  return { cpu_percent, memory_bytes, memory_limit_bytes, network_rx_bytes, network_tx_bytes, sampled_at };
}
