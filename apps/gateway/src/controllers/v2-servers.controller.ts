// The hosted service's v2 servers API (`/api/v2/servers…`), as its published description and its Unity SDK
// use it: the same servers as v3 (one store, the same bus subjects and rules), in v2's shapes. Unknown
// body and query fields are ignored (v2 does); an id that is not one of this project's servers is 404.
import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Put, Query, Req, UseGuards, UseInterceptors } from '@nestjs/common';
import { Bus } from '@spawnpoint/messaging';
import { BUS } from '@spawnpoint/platform';
import {
  GetServerRequest, ReportServerStateRequest, StartServerBody, StartServerRequest, StopServerRequest, SUBJECTS, V2InstanceView, V2StartServerBody as V2StartBody, V2ServerList as V2List, V2ServerStopped as V2Stopped,
} from '@spawnpoint/proto';
import { Access, AccessGuard, AuthedRequest } from '../http/guard';
import { IdempotencyInterceptor } from '../http/idempotency';
import { InputLimitsGuard } from '../http/input-limits.guard';
import { parseIgnoringUnknown } from '../http/validation';
import { Doc } from '../openapi/doc';
import {
  ErrorBody, V2Instance, V2Server, V2ListServersQuery, V2ServerIdParams, V2ServerList, V2ServerStatusHeaders, V2ServerStopped, V2StartServerBody,
} from '../schemas';
import { listAllServers } from '../v2/v2-server-list';
import { toV2Instance, toV2Start } from '../v2/v2-server-views';

const errors = {
  401: { description: 'Missing or unknown api-key', schema: ErrorBody },
  404: { description: 'No such server in this project', schema: ErrorBody },
  422: { description: 'Invalid request', schema: ErrorBody },
};
const forbidden = { 403: { description: 'A client key while client_key_server_control is false, or the plan forbids it', schema: ErrorBody } };

@Controller('api/v2/servers')
@UseGuards(AccessGuard, InputLimitsGuard)
export class V2ServersController {
  constructor(@Inject(BUS) private readonly bus: Bus) {}

  @Get()
  @Access({ auth: 'client', bucket: 'read' })
  @Doc({ summary: 'Legacy: list the running servers (with include_launching, launching ones too), newest first, all of them (v2 does not page); unclaimed pool servers are left out',
    tags: ['legacy'], auth: 'client', query: V2ListServersQuery, responses: { 200: { description: 'Servers', schema: V2ServerList }, 401: errors[401], 422: errors[422] } })
  async list(@Req() req: AuthedRequest, @Query() query: unknown): Promise<V2List> {
    const q = parseIgnoringUnknown(V2ListServersQuery, query, 'query');
    const servers = (await listAllServers(this.bus, req.principal!.projectId, q.include_launching ?? false)).map(toV2Instance);
    return { total_servers: servers.length, servers };
  }

  @UseInterceptors(IdempotencyInterceptor)
  @Post('start')
  @Access({ auth: 'client', bucket: 'write', serverControl: true })
  @Doc({ summary: 'Legacy: start a game server (as POST /v3/servers/start), answered in the v2 shape', tags: ['legacy'], auth: 'client', body: V2StartServerBody,
    responses: { 201: { description: 'Launching, with network_ports allocated', schema: V2Server }, ...forbidden, ...errors } })
  async start(@Req() req: AuthedRequest, @Body() body: unknown) {
    const b = parseIgnoringUnknown(V2StartServerBody, body, 'body');
    // null is the hosted service's "not given".
    const given = Object.fromEntries(Object.entries(b).filter(([, v]) => v !== null && v !== undefined)) as V2StartBody as StartServerBody;
    const s = await this.bus.request(SUBJECTS.servers.start, { projectId: req.principal!.projectId, plan: req.principal!.plan, body: given } satisfies StartServerRequest, { timeoutMs: 30_000 });
    return toV2Start(s);
  }

  @Get(':instance_id')
  @Access({ auth: 'client', bucket: 'read' })
  @Doc({ summary: 'Legacy: get a server', tags: ['legacy'], auth: 'client', params: V2ServerIdParams,
    responses: { 200: { description: 'Server', schema: V2Instance }, ...errors } })
  async get(@Req() req: AuthedRequest, @Param() params: unknown): Promise<V2InstanceView> {
    const { instance_id } = parseIgnoringUnknown(V2ServerIdParams, params, 'path');
    return toV2Instance(await this.bus.request(SUBJECTS.servers.get, { projectId: req.principal!.projectId, serverId: instance_id } satisfies GetServerRequest));
  }

  @UseInterceptors(IdempotencyInterceptor)
  @Delete(':instance_id')
  @Access({ auth: 'client', bucket: 'write', serverControl: true })
  @Doc({ summary: 'Legacy: stop a server (as DELETE /v3/servers/{id}); a server already stopped is no error: the same answer', tags: ['legacy'], auth: 'client',
    params: V2ServerIdParams, responses: { 200: { description: 'Stopped', schema: V2ServerStopped }, ...forbidden, ...errors } })
  async stop(@Req() req: AuthedRequest, @Param() params: unknown): Promise<V2Stopped> {
    const { instance_id } = parseIgnoringUnknown(V2ServerIdParams, params, 'path');
    const projectId = req.principal!.projectId;
    // A server already stopped is no error: the servers service answers it as stopped (DELETE is idempotent).
    await this.bus.request(SUBJECTS.servers.stop, { projectId, serverId: instance_id } satisfies StopServerRequest);
    return { status: 'stopped' };
  }

  @Put(':instance_id/update')
  @HttpCode(200)
  @Access({ auth: 'client', bucket: 'write', serverControl: true })
  @Doc({ summary: 'Legacy: a game server reports its state in X-Server-Status: running (a launching server runs, as POST /v3/game/ready), stopped (stops it; again: no error), launching (nothing changes)',
    tags: ['legacy'], auth: 'client', params: V2ServerIdParams,
    headers: { 'X-Server-Status': { required: true, description: 'launching, running or stopped' } },
    responses: { 200: { description: 'The server after the report', schema: V2Instance }, 409: { description: 'running reported by a stopped server', schema: ErrorBody }, ...forbidden, ...errors } })
  async update(@Req() req: AuthedRequest, @Param() params: unknown): Promise<V2InstanceView> {
    const { instance_id } = parseIgnoringUnknown(V2ServerIdParams, params, 'path');
    const { 'X-Server-Status': state } = parseIgnoringUnknown(V2ServerStatusHeaders, { 'X-Server-Status': req.headers['x-server-status'] }, 'header');
    const s = await this.bus.request(SUBJECTS.servers.reportState, { projectId: req.principal!.projectId, serverId: instance_id, state } satisfies ReportServerStateRequest);
    return toV2Instance(s);
  }
}
