// The legacy v2 start: same behaviour as v3, the older response shape.
import { Body, Controller, Inject, Post, Req, UseGuards, UseInterceptors } from '@nestjs/common';
import { Bus } from '@spawnpoint/messaging';
import { BUS } from '@spawnpoint/platform';
import { ServerView, SUBJECTS } from '@spawnpoint/proto';
import { Access, AccessGuard, AuthedRequest } from '../http/guard';
import { parse } from '../http/validation';
import { Doc } from '../openapi/doc';
import { ErrorBody, V2Server, V2StartServerBody } from '../schemas';
import { InputLimitsGuard } from '../http/input-limits.guard';
import { IdempotencyInterceptor } from '../http/idempotency';

@Controller('api/v2/servers')
@UseGuards(AccessGuard, InputLimitsGuard)
export class V2Controller {
  constructor(@Inject(BUS) private readonly bus: Bus) {}

  @UseInterceptors(IdempotencyInterceptor)
  @Post('start')
  @Access({ auth: 'client', bucket: 'write', serverControl: true })
  @Doc({ summary: 'Legacy server start', tags: ['legacy'], auth: 'client', body: V2StartServerBody,
    responses: { 201: { description: 'Launching', schema: V2Server }, 422: { description: 'Invalid', schema: ErrorBody } } })
  async start(@Req() req: AuthedRequest, @Body() body: unknown) {
    const b = parse(V2StartServerBody, body, 'body');
    const s = await this.bus.request<ServerView>(SUBJECTS.servers.start, { projectId: req.principal!.projectId, plan: req.principal!.plan, body: b }, { timeoutMs: 30_000 });
    return {
      instance_id: s.instance_id, name: s.name, status: s.status, region: s.region,
      network_ports: s.network_ports.map((p) => ({ ...p, tls_enabled: p.tls_enabled ?? false })),
      compute_size: s.compute_size, version_tag: s.version_tag, started_at: s.started_at,
    };
  }
}
