// A server's logs, log histogram and live metrics, and the logs of every server of the project: reads
// (client key allowed, read bucket). The servers service checks the times against its clock and answers
// 404 for another project's server.
import { Controller, Get, Inject, Param, Query, Req, UseGuards } from '@nestjs/common';
import { Bus } from '@spawnpoint/messaging';
import { BUS } from '@spawnpoint/platform';
import { LogHistogram as LogHistogramView, LogPage as LogPageView, ProjectLogPage as ProjectLogPageView, ServerMetricsView, SUBJECTS } from '@spawnpoint/proto';
import { Access, AccessGuard, AuthedRequest } from '../http/guard';
import { parse } from '../http/validation';
import { Doc } from '../openapi/doc';
import { ErrorBody, LogHistogram, LogHistogramQuery, LogPage, LogsQuery, ProjectLogPage, ProjectLogsQuery, ServerIdParams, ServerMetrics } from '../schemas';
import { InputLimitsGuard } from '../http/input-limits.guard';

const errors = { 401: { description: 'Missing or unknown api-key', schema: ErrorBody }, 404: { description: 'No such server in this project', schema: ErrorBody }, 422: { description: 'Invalid request', schema: ErrorBody } };
/** A search over a long window may scan many lines: more than the bus's default 5 s. */
const SCAN_TIMEOUT_MS = 30_000;

@Controller('api/v3')
@UseGuards(AccessGuard, InputLimitsGuard)
export class ServerLogsController {
  constructor(@Inject(BUS) private readonly bus: Bus) {}

  @Get('servers/:instance_id/logs')
  @Access({ auth: 'client', bucket: 'read' })
  @Doc({ summary: 'A server\'s log lines in a time window, oldest first, paged with next_token', tags: ['servers'], auth: 'client', params: ServerIdParams, query: LogsQuery,
    responses: { 200: { description: 'A page of log lines', schema: LogPage }, ...errors } })
  logs(@Req() req: AuthedRequest, @Param() params: unknown, @Query() query: unknown): Promise<LogPageView> {
    const { instance_id } = parse(ServerIdParams, params, 'path');
    const q = parse(LogsQuery, query, 'query');
    return this.bus.request(SUBJECTS.servers.logs, { projectId: req.principal!.projectId, serverId: instance_id, ...q }, { timeoutMs: SCAN_TIMEOUT_MS });
  }

  @Get('projects/logs')
  @Access({ auth: 'client', bucket: 'read' })
  @Doc({ summary: 'The log lines of every server of the project in a time window (start_time required), oldest first, each with its server\'s name and region; paged with next_token', tags: ['servers'], auth: 'client', query: ProjectLogsQuery,
    responses: { 200: { description: 'A page of log lines', schema: ProjectLogPage }, 401: errors[401], 422: errors[422] } })
  projectLogs(@Req() req: AuthedRequest, @Query() query: unknown): Promise<ProjectLogPageView> {
    const q = parse(ProjectLogsQuery, query, 'query');
    return this.bus.request(SUBJECTS.servers.projectLogs, { projectId: req.principal!.projectId, ...q }, { timeoutMs: SCAN_TIMEOUT_MS });
  }

  @Get('servers/:instance_id/log-histogram')
  @Access({ auth: 'client', bucket: 'read' })
  @Doc({ summary: 'Log line counts per level in time bins (empty bins omitted)', tags: ['servers'], auth: 'client', params: ServerIdParams, query: LogHistogramQuery,
    responses: { 200: { description: 'Log histogram', schema: LogHistogram }, ...errors } })
  histogram(@Req() req: AuthedRequest, @Param() params: unknown, @Query() query: unknown): Promise<LogHistogramView> {
    const { instance_id } = parse(ServerIdParams, params, 'path');
    const q = parse(LogHistogramQuery, query, 'query');
    return this.bus.request(SUBJECTS.servers.logHistogram, { projectId: req.principal!.projectId, serverId: instance_id, ...q }, { timeoutMs: SCAN_TIMEOUT_MS });
  }

  @Get('servers/:instance_id/metrics')
  @Access({ auth: 'client', bucket: 'read' })
  @Doc({ summary: 'Live CPU, memory and network figures of a server (null where the runtime cannot measure, or the server is not running)', tags: ['servers'], auth: 'client', params: ServerIdParams,
    responses: { 200: { description: 'Server metrics', schema: ServerMetrics }, ...errors } })
  metrics(@Req() req: AuthedRequest, @Param() params: unknown): Promise<ServerMetricsView> {
    const { instance_id } = parse(ServerIdParams, params, 'path');
    return this.bus.request(SUBJECTS.servers.metrics, { projectId: req.principal!.projectId, serverId: instance_id });
  }
}
