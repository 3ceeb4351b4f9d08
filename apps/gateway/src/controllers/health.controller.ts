// /api/health: the gateway's own dependencies (its database for edge state, the bus) and what each
// service reports over the bus (its event store and database, its projections' parked events and lag).
// The gateway holds no event store and reads no service's tables, in either mode.
// /api/health/live and /api/health/ready are the probes of this gateway alone (Kubernetes): ready when
// it can serve (its bus and database answer), whatever any one service is doing, so a slow servers pod
// never takes every gateway out of its Service.
import { Controller, Get, Inject, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Bus } from '@spawnpoint/messaging';
import { askEveryService, BUS, checkWithin, LAG_DEGRADED_SECONDS, READ_MODELS } from '@spawnpoint/platform';
import { DependencyCheck, serviceHealthSubject, ServiceHealthReport, SUBJECTS } from '@spawnpoint/proto';
import type { ReadModels } from '@spawnpoint/read-models';
import { Access } from '../http/guard';
import { Doc } from '../openapi/doc';
import { Health, Probe } from '../schemas';
import { InputLimitsGuard } from '../http/input-limits.guard';

const VERSION: string = require('../../package.json').version;
const DEADLINE_MS = 2000;

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
      checkWithin(() => this.db.$queryRaw`SELECT 1`, DEADLINE_MS),
      checkWithin(() => this.bus.ping(), DEADLINE_MS),
      // The servers service answers for its runtime; a project-less usesBuild probe is cheap.
      checkWithin(() => this.bus.request(SUBJECTS.servers.usesBuild, { projectId: '-', buildId: '00000000-0000-0000-0000-000000000000' }, { timeoutMs: DEADLINE_MS }), DEADLINE_MS),
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
