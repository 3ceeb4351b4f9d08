// Bus handlers for a server's logs, log histogram and metrics. Kept out of ServersService: they need
// only the read models, the runtime and a project-checked server lookup.
import type { Handlers } from '@spawnpoint/platform';
import {
  LogHistogram, LogHistogramRequest, LogPage, ServerLogsRequest, ServerMetricsRequest, ServerMetricsView, ServerView, SUBJECTS,
} from '@spawnpoint/proto';
import type { ReadModels } from '@spawnpoint/read-models';
import type { GameRuntime } from '@spawnpoint/runtime';
import { queryLogHistogram, queryLogs } from './log-queries';
import { checkHistogramQuery, checkLogsQuery } from './log-window';

export interface LogHandlerDeps {
  db: ReadModels;
  runtime: Pick<GameRuntime, 'metrics'>;
  /** The server as its project sees it; throws 404 for a missing server or another project's. */
  getServer(projectId: string, serverId: string): Promise<ServerView>;
  now(): Date;
}

export function logHandlers(deps: LogHandlerDeps): Handlers {
  return {
    // Parameters are checked before the lookup: a bad request is 422 whoever's server it names.
    [SUBJECTS.servers.logs]: async (r: ServerLogsRequest): Promise<LogPage> => {
      const q = checkLogsQuery(r, deps.now());
      const server = await deps.getServer(r.projectId, r.serverId);
      return queryLogs(deps.db, server, q);
    },
    [SUBJECTS.servers.logHistogram]: async (r: LogHistogramRequest): Promise<LogHistogram> => {
      const q = checkHistogramQuery(r, deps.now());
      const server = await deps.getServer(r.projectId, r.serverId);
      return queryLogHistogram(deps.db, server.instance_id, q);
    },
    [SUBJECTS.servers.metrics]: (r: ServerMetricsRequest) => serverMetrics(deps, r),
  };
}

/** Live figures from the runtime; all null (sampled now) for a stopped server or one this runtime does not run. */
async function serverMetrics(deps: LogHandlerDeps, r: ServerMetricsRequest): Promise<ServerMetricsView> {
  const server = await deps.getServer(r.projectId, r.serverId);
  const m = server.status === 'stopped' ? null : await deps.runtime.metrics(server.instance_id);
  if (!m) {
    return { cpu_percent: null, memory_bytes: null, memory_limit_bytes: null, network_rx_bytes: null, network_tx_bytes: null, sampled_at: deps.now().toISOString() };
  }
  const { cpu_percent, memory_bytes, memory_limit_bytes, network_rx_bytes, network_tx_bytes, sampled_at } = m;
  return { cpu_percent, memory_bytes, memory_limit_bytes, network_rx_bytes, network_tx_bytes, sampled_at };
}
