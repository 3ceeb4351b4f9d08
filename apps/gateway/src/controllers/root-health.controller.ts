// /health at the root (outside /api): the hosted service's clients check it there. The same report as /api/health.
import { Controller, Get, Inject, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Bus } from '@spawnpoint/messaging';
import { BUS, READ_MODELS } from '@spawnpoint/platform';
import type { ReadModels } from '@spawnpoint/read-models';
import { Access } from '../http/guard';
import { InputLimitsGuard } from '../http/input-limits.guard';
import { Doc } from '../openapi/doc';
import { Health } from '../schemas';
import { healthReport } from './health-report';

@UseGuards(InputLimitsGuard)
@Controller()
export class RootHealthController {
  constructor(@Inject(BUS) private readonly bus: Bus, @Inject(READ_MODELS) private readonly db: ReadModels) {}

  @Get('health')
  @Access({ auth: 'none' })
  @Doc({ summary: 'The same as /api/health, at the root (as the hosted service serves it; no api-key)', tags: ['health', 'legacy'], auth: 'none',
    responses: { 200: { description: 'All checks pass', schema: Health }, 503: { description: 'A dependency is down', schema: Health } } })
  async health(@Res({ passthrough: true }) reply: FastifyReply) {
    const { ok, body } = await healthReport(this.bus, this.db);
    void reply.status(ok ? 200 : 503);
    return body;
  }
}
