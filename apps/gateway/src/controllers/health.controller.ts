import { Controller, Get, Inject, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { EventStore } from '@spawnpoint/eventstore';
import { Bus } from '@spawnpoint/messaging';
import { BUS, EVENT_STORE, LAG_DEGRADED_SECONDS, ProjectionHealth, projectionsHealth, READ_MODELS } from '@spawnpoint/platform';
import { SUBJECTS } from '@spawnpoint/proto';
import type { ReadModels } from '@spawnpoint/read-models';
import { Access } from '../http/guard';
import { Doc } from '../openapi/doc';
import { Health } from '../schemas';
import { InputLimitsGuard } from '../http/input-limits.guard';

const VERSION: string = require('../../package.json').version;

async function check(fn: () => Promise<unknown>): Promise<{ ok: boolean; detail?: string }> {
  try {
    await Promise.race([fn(), new Promise((_, reject) => setTimeout(() => reject(new Error('timed out')), 2000))]);
    return { ok: true };
  } catch (err) {
    return { ok: false, detail: (err as Error).message };
  }
}

@UseGuards(InputLimitsGuard)
@Controller('api/health')
export class HealthController {
  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_MODELS) private readonly db: ReadModels,
  ) {}

  @Get()
  @Access({ auth: 'none' })
  @Doc({ summary: 'Liveness and dependencies (no api-key)', tags: ['health'], auth: 'none',
    responses: { 200: { description: 'All checks pass', schema: Health }, 503: { description: 'A dependency is down', schema: Health } } })
  async health(@Res({ passthrough: true }) reply: FastifyReply) {
    const read = this.projections();
    const [database, bus, eventStore, runtime] = await Promise.all([
      check(() => this.db.$queryRaw`SELECT 1`),
      check(() => this.bus.ping()),
      check(() => this.store.ping()),
      // The servers service answers for its runtime; a project-less usesBuild probe is cheap.
      check(() => this.bus.request(SUBJECTS.servers.usesBuild, { projectId: '-', buildId: '00000000-0000-0000-0000-000000000000' }, { timeoutMs: 2000 })),
    ]);
    const checks = { database, bus, eventStore, runtime };
    const ok = Object.values(checks).every((c) => c.ok);
    // Parked events or a lagging read model: degraded, but still 200 (the service answers; an operator should look).
    const projections = await read;
    const troubled = projections?.some((p) => p.parked_events > 0 || p.lag_seconds > LAG_DEGRADED_SECONDS) ?? false;
    void reply.status(ok ? 200 : 503);
    return { status: ok && !troubled ? 'ok' : 'degraded', version: VERSION, checks, ...(projections ? { projections } : {}) };
  }

  private async projections(): Promise<ProjectionHealth[] | undefined> {
    return Promise.race([
      projectionsHealth(this.db, this.store).catch(() => undefined),
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 2000).unref()),
    ]);
  }
}
