// /api/health: the health report (health-report.ts). The gateway holds no event store and reads no
// service's tables, in either mode.
// /api/health/live and /api/health/ready are the probes of this gateway alone (Kubernetes): ready when
// it can serve (its bus and database answer), whatever any one service is doing, so a slow servers pod
// never takes every gateway out of its Service.
import { Controller, Get, Inject, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Bus } from '@spawnpoint/messaging';
import { BUS, checkWithin, READ_MODELS } from '@spawnpoint/platform';
import type { ReadModels } from '@spawnpoint/read-models';
import { Access } from '../http/guard';
import { Doc } from '../openapi/doc';
import { Health, Probe } from '../schemas';
import { InputLimitsGuard } from '../http/input-limits.guard';
import { DEADLINE_MS, healthReport } from './health-report';

@UseGuards(InputLimitsGuard)
@Controller('api/health')
export class HealthController {
  constructor(@Inject(BUS) private readonly bus: Bus, @Inject(READ_MODELS) private readonly db: ReadModels) {}

  @Get()
  @Access({ auth: 'none' })
  @Doc({ summary: 'Liveness and dependencies (no api-key)', tags: ['health'], auth: 'none',
    responses: { 200: { description: 'All checks pass', schema: Health }, 503: { description: 'A dependency is down', schema: Health } } })
  async health(@Res({ passthrough: true }) reply: FastifyReply) {
    const { ok, body } = await healthReport(this.bus, this.db);
    void reply.status(ok ? 200 : 503);
    return body;
  }

  @Get('live')
  @Access({ auth: 'none' })
  @Doc({ summary: 'Liveness of this gateway (no api-key; checks nothing else)', tags: ['health'], auth: 'none',
    responses: { 200: { description: 'Serving', schema: Probe } } })
  live() {
    return { status: 'ok' };
  }

  @Get('ready')
  @Access({ auth: 'none' })
  @Doc({ summary: 'Readiness of this gateway: its bus and database answer (no api-key; not the services)', tags: ['health'], auth: 'none',
    responses: { 200: { description: 'Ready to serve', schema: Probe }, 503: { description: 'Its bus or database is down', schema: Probe } } })
  async ready(@Res({ passthrough: true }) reply: FastifyReply) {
    const [bus, database] = await Promise.all([
      checkWithin(() => this.bus.ping(), DEADLINE_MS),
      checkWithin(() => this.db.$queryRaw`SELECT 1`, DEADLINE_MS),
    ]);
    const ok = bus.ok && database.ok;
    void reply.status(ok ? 200 : 503);
    return { status: ok ? 'ok' : 'unavailable', checks: { bus, database } };
  }
}
