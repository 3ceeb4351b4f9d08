import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query, Req, UseGuards, UseInterceptors } from '@nestjs/common';
import { Bus } from '@spawnpoint/messaging';
import { BUS } from '@spawnpoint/platform';
import { ServerView, StartServerBody as StartBody, SUBJECTS } from '@spawnpoint/proto';
import { Access, AccessGuard, AuthedRequest } from '../http/guard';
import { parse } from '../http/validation';
import { Doc } from '../openapi/doc';
import { BackfillOverrideBody, BackfillState, ErrorBody, ListServersQuery, RestartServerBody, Server, ServerIdParams, ServerList, StartServerBody, StopServerQuery, UpdateServerBody } from '../schemas';
import { InputLimitsGuard } from '../http/input-limits.guard';
import { IdempotencyInterceptor } from '../http/idempotency';

const errors = { 401: { description: 'Missing or unknown api-key', schema: ErrorBody }, 404: { description: 'No such server in this project', schema: ErrorBody }, 422: { description: 'Invalid request', schema: ErrorBody } };

@Controller('api/v3/servers')
@UseGuards(AccessGuard, InputLimitsGuard)
export class ServersController {
  constructor(@Inject(BUS) private readonly bus: Bus) {}

  @UseInterceptors(IdempotencyInterceptor)
  @Post('start')
  @Access({ auth: 'client', bucket: 'write', serverControl: true })
  @Doc({ summary: 'Start a game server from the latest ready build under version_tag (or the pinned version)', tags: ['servers'], auth: 'client', body: StartServerBody,
    responses: { 201: { description: 'Launching, with network_ports allocated', schema: Server }, 403: { description: 'Plan or key forbids it', schema: ErrorBody }, ...errors } })
  start(@Req() req: AuthedRequest, @Body() body: unknown): Promise<ServerView> {
    const b = parse(StartServerBody, body, 'body') as StartBody;
    return this.bus.request(SUBJECTS.servers.start, { projectId: req.principal!.projectId, plan: req.principal!.plan, body: b }, { timeoutMs: 30_000 });
  }

  @Get()
  @Access({ auth: 'client', bucket: 'read' })
  @Doc({ summary: 'List servers, newest first: running ones (launching too with include_launching; unclaimed pool servers with include_pool), paged by offset and limit', tags: ['servers'], auth: 'client', query: ListServersQuery,
    responses: { 200: { description: 'A page of servers with the total matching', schema: ServerList }, 422: errors[422] } })
  list(@Req() req: AuthedRequest, @Query() query: unknown) {
    const q = parse(ListServersQuery, query, 'query');
    return this.bus.request(SUBJECTS.servers.list, { projectId: req.principal!.projectId, ...q });
  }

  @Get(':instance_id')
  @Access({ auth: 'client', bucket: 'read' })
  @Doc({ summary: 'Get a server; poll it to see launching become running', tags: ['servers'], auth: 'client', params: ServerIdParams, responses: { 200: { description: 'Server', schema: Server }, ...errors } })
  get(@Req() req: AuthedRequest, @Param() params: unknown) {
    const { instance_id } = parse(ServerIdParams, params, 'path');
    return this.bus.request(SUBJECTS.servers.get, { projectId: req.principal!.projectId, serverId: instance_id });
  }

  @UseInterceptors(IdempotencyInterceptor)
  @Delete(':instance_id')
  @Access({ auth: 'client', bucket: 'write', serverControl: true })
  @Doc({ summary: 'Stop a server; network_ports becomes empty. Idempotent: a stopped server answers 200 as it stopped', tags: ['servers'], auth: 'client', params: ServerIdParams, query: StopServerQuery,
    responses: { 200: { description: 'Stopped server (stopped_at set)', schema: Server }, ...errors } })
  stop(@Req() req: AuthedRequest, @Param() params: unknown, @Query() query: unknown) {
    const { instance_id } = parse(ServerIdParams, params, 'path');
    const q = parse(StopServerQuery, query, 'query');
    return this.bus.request(SUBJECTS.servers.stop, { projectId: req.principal!.projectId, serverId: instance_id, reason: q.shutdown_reason });
  }

  @Get(':instance_id/backfill')
  @Access({ auth: 'server', bucket: 'read' })
  @Doc({ summary: "The server's match as its backfill stands (server key): status, backfill_open, window, skill band, roster_version, roster", tags: ['backfill'], auth: 'server',
    params: ServerIdParams, responses: { 200: { description: 'Backfill state', schema: BackfillState }, 403: { description: 'Client key', schema: ErrorBody }, ...errors } })
  backfill(@Req() req: AuthedRequest, @Param() params: unknown) {
    const { instance_id } = parse(ServerIdParams, params, 'path');
    return this.bus.request(SUBJECTS.backfill.get, { projectId: req.principal!.projectId, serverId: instance_id });
  }

  @UseInterceptors(IdempotencyInterceptor)
  @Patch(':instance_id/backfill')
  @Access({ auth: 'server', bucket: 'write' })
  @Doc({ summary: "Open (accepting) or lock the server's match to backfill joiners; skillBand replaces the band (server key). Every override increments roster_version", tags: ['backfill'],
    auth: 'server', params: ServerIdParams, body: BackfillOverrideBody,
    responses: { 200: { description: 'Backfill state', schema: BackfillState }, 403: { description: 'Client key', schema: ErrorBody }, 409: { description: 'The match is completed (its server stopped)', schema: ErrorBody }, ...errors } })
  overrideBackfill(@Req() req: AuthedRequest, @Param() params: unknown, @Body() body: unknown) {
    const { instance_id } = parse(ServerIdParams, params, 'path');
    const b = parse(BackfillOverrideBody, body ?? {}, 'body');
    return this.bus.request(SUBJECTS.backfill.override, { projectId: req.principal!.projectId, serverId: instance_id, body: b });
  }

  @UseInterceptors(IdempotencyInterceptor)
  @Post(':instance_id/restart')
  @HttpCode(200)
  @Access({ auth: 'client', bucket: 'write', serverControl: true })
  @Doc({ summary: 'Restart a server on a new machine with new ports (same instance_id); optional overrides. Pool servers: 409', tags: ['servers'], auth: 'client',
    params: ServerIdParams, body: RestartServerBody,
    responses: { 200: { description: 'Launching again', schema: Server }, 409: { description: 'A pool server', schema: ErrorBody }, ...errors } })
  restart(@Req() req: AuthedRequest, @Param() params: unknown, @Body() body: unknown) {
    const { instance_id } = parse(ServerIdParams, params, 'path');
    const b = parse(RestartServerBody, body ?? {}, 'body');
    return this.bus.request(SUBJECTS.servers.restart, { projectId: req.principal!.projectId, serverId: instance_id, body: b }, { timeoutMs: 30_000 });
  }

  @UseInterceptors(IdempotencyInterceptor)
  @Post(':instance_id/update')
  @HttpCode(200)
  @Access({ auth: 'client', bucket: 'write', serverControl: true })
  @Doc({ summary: "Replace a launching or running server's custom_data (visible at once in get and list)", tags: ['servers'], auth: 'client',
    params: ServerIdParams, body: UpdateServerBody,
    responses: { 200: { description: 'Server', schema: Server }, 409: { description: 'Server stopped', schema: ErrorBody }, ...errors } })
  update(@Req() req: AuthedRequest, @Param() params: unknown, @Body() body: unknown) {
    const { instance_id } = parse(ServerIdParams, params, 'path');
    const b = parse(UpdateServerBody, body, 'body');
    return this.bus.request(SUBJECTS.servers.update, { projectId: req.principal!.projectId, serverId: instance_id, customData: b.custom_data });
  }
}
