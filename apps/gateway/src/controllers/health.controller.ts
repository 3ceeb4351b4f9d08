// /api/health: the gateway's own dependencies (its database for edge state, the bus) and what each
// service reports over the bus (its event store and database, its projections' parked events and lag).
// The gateway holds no event store and reads no service's tables, in either mode.
import { Controller, Get, Inject, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Bus } from '@spawnpoint/messaging';
import { askEveryService, BUS, LAG_DEGRADED_SECONDS, READ_MODELS } from '@spawnpoint/platform';
import { DependencyCheck, serviceHealthSubject, ServiceHealthReport, SUBJECTS } from '@spawnpoint/proto';
import type { ReadModels } from '@spawnpoint/read-models';
import { Access } from '../http/guard';
import { Doc } from '../openapi/doc';
import { Health } from '../schemas';
import { InputLimitsGuard } from '../http/input-limits.guard';

const VERSION: string = require('../../package.json').version;
const DEADLINE_MS = 2000;

async function check(fn: () => Promise<unknown>): Promise<DependencyCheck> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([fn(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('timed out')), DEADLINE_MS)))]);
    return { ok: true };
  } catch (err) {
    return { ok: false, detail: (err as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

/** One check out of the services' own: ok when every service answered and reports it ok. */
function across(reports: ServiceHealthReport[], missing: string[], pick: (r: ServiceHealthReport) => DependencyCheck): DependencyCheck {
  const failed = reports.filter((r) => !pick(r).ok).map((r) => `${r.service}: ${pick(r).detail ?? 'failed'}`);
  if (reports.length === 0) return { ok: false, detail: 'no service answered' };
  return failed.length ? { ok: false, detail: failed.join('; ') } : { ok: true, ...(missing.length ? { detail: `not reported by ${missing.join(', ')}` } : {}) };
}

@UseGuards(InputLimitsGuard)
@Controller('api/health')
export class HealthController {
  constructor(@Inject(BUS) private readonly bus: Bus, @Inject(READ_MODELS) private readonly db: ReadModels) {}

  @Get()
  @Access({ auth: 'none' })
  @Doc({ summary: 'Liveness and dependencies (no api-key)', tags: ['health'], auth: 'none',
    responses: { 200: { description: 'All checks pass', schema: Health }, 503: { description: 'A dependency is down', schema: Health } } })
  async health(@Res({ passthrough: true }) reply: FastifyReply) {
    const [database, bus, runtime, answers] = await Promise.all([
      check(() => this.db.$queryRaw`SELECT 1`),
      check(() => this.bus.ping()),
      // The servers service answers for its runtime; a project-less usesBuild probe is cheap.
      check(() => this.bus.request(SUBJECTS.servers.usesBuild, { projectId: '-', buildId: '00000000-0000-0000-0000-000000000000' }, { timeoutMs: DEADLINE_MS })),
      askEveryService<ServiceHealthReport>(this.bus, serviceHealthSubject, {}, DEADLINE_MS),
    ]);
    const reports = answers.flatMap((a) => (a.ok ? [a.reply] : []));
    const missing = answers.flatMap((a) => (a.ok ? [] : [a.service]));
    const services: DependencyCheck = missing.length
      ? { ok: false, detail: answers.flatMap((a) => (a.ok ? [] : [`${a.service}: ${a.error}`])).join('; ') }
      : { ok: true };
    const checks = { database, bus, eventStore: across(reports, missing, (r) => r.checks.eventStore), runtime, services };
    const ok = Object.values(checks).every((c) => c.ok);
    // Parked events or a lagging read model: degraded, but still 200 (the service answers; an operator should look).
    // Those the services could read (a service whose database is down fails a check above instead).
    const projections = reports.some((r) => r.projections)
      ? reports.flatMap((r) => r.projections ?? []).sort((a, b) => a.name.localeCompare(b.name))
      : undefined;
    const troubled = projections?.some((p) => p.parked_events > 0 || p.lag_seconds > LAG_DEGRADED_SECONDS) ?? false;
    void reply.status(ok ? 200 : 503);
    return { status: ok && !troubled ? 'ok' : 'degraded', version: VERSION, checks, ...(projections ? { projections } : {}) };
  }
}
