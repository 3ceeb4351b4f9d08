// The health report of /api/health (and /health, the same at the root): the gateway's own dependencies (its
// database for edge state, the bus) and what each service reports over the bus (its event store and
// database, its projections' parked events and lag).
import { Bus } from '@spawnpoint/messaging';
import { askEveryService, checkWithin, LAG_DEGRADED_SECONDS } from '@spawnpoint/platform';
import { DependencyCheck, serviceHealthSubject, ServiceHealthReport, SUBJECTS } from '@spawnpoint/proto';
import type { ReadModels } from '@spawnpoint/read-models';

const VERSION: string = require('../../package.json').version;
export const DEADLINE_MS = 2000;

/** One check out of the services' own: ok when every service answered and reports it ok. */
function across(reports: ServiceHealthReport[], missing: string[], pick: (r: ServiceHealthReport) => DependencyCheck): DependencyCheck {
  const failed = reports.filter((r) => !pick(r).ok).map((r) => `${r.service}: ${pick(r).detail ?? 'failed'}`);
  if (reports.length === 0) return { ok: false, detail: 'no service answered' };
  return failed.length ? { ok: false, detail: failed.join('; ') } : { ok: true, ...(missing.length ? { detail: `not reported by ${missing.join(', ')}` } : {}) };
}

/** `ok`: every check passes (200), else 503; the body says `degraded` for parked events or lag even when ok. */
export async function healthReport(bus: Bus, db: ReadModels): Promise<{ ok: boolean; body: Record<string, unknown> }> {
  const [database, busCheck, runtime, answers] = await Promise.all([
    checkWithin(() => db.$queryRaw`SELECT 1`, DEADLINE_MS),
    checkWithin(() => bus.ping(), DEADLINE_MS),
    // The servers service answers for its runtime; a project-less usesBuild probe is cheap.
    checkWithin(() => bus.request(SUBJECTS.servers.usesBuild, { projectId: '-', buildId: '00000000-0000-0000-0000-000000000000' }, { timeoutMs: DEADLINE_MS }), DEADLINE_MS),
    askEveryService(bus, serviceHealthSubject, {}, DEADLINE_MS),
  ]);
  const reports = answers.flatMap((a) => (a.ok ? [a.reply] : []));
  const missing = answers.flatMap((a) => (a.ok ? [] : [a.service]));
  const services: DependencyCheck = missing.length
    ? { ok: false, detail: answers.flatMap((a) => (a.ok ? [] : [`${a.service}: ${a.error}`])).join('; ') }
    : { ok: true };
  const checks = { database, bus: busCheck, eventStore: across(reports, missing, (r) => r.checks.eventStore), runtime, services };
  const ok = Object.values(checks).every((c) => c.ok);
  // Parked events or a lagging read model: degraded, but still 200 (the service answers; an operator should look).
  // Those the services could read (a service whose database is down fails a check above instead).
  const projections = reports.some((r) => r.projections)
    ? reports.flatMap((r) => r.projections ?? []).sort((a, b) => a.name.localeCompare(b.name))
    : undefined;
  const troubled = projections?.some((p) => p.parked_events > 0 || p.lag_seconds > LAG_DEGRADED_SECONDS) ?? false;
  return { ok, body: { status: ok && !troubled ? 'ok' : 'degraded', version: VERSION, checks, ...(projections ? { projections } : {}) } };
}
