// What a project's plan allows a server start to be. Pure: the caller passes the active count.
import { forbidden, invalid } from '../kit';
import { Plan, PLAN_LIMITS } from '../catalog';

/** What a start's admission is decided on: the project's plan and its active servers (counted only when the plan caps them). */
export interface Admission {
  plan: Plan;
  activeServers: number;
}

export interface PlanCheck {
  plan: Plan;
  computeSize: string;
  ttl: number | null;
  activeServers: number;
}

/** Returns the ttl the server gets, or throws 403 (plan forbids) / 422 (ttl too long). */
export function applyPlan(check: PlanCheck): number | null {
  const limits = PLAN_LIMITS[check.plan];
  if (!limits.computeSizes.includes(check.computeSize)) {
    throw forbidden(`compute_size "${check.computeSize}" is not available on the ${check.plan} plan (allowed: ${limits.computeSizes.join(', ')})`);
  }
  if (limits.maxActiveServers !== null && check.activeServers >= limits.maxActiveServers) {
    throw forbidden(`the ${check.plan} plan allows ${limits.maxActiveServers} active server(s); stop one first or upgrade`);
  }
  if (limits.forcedTtl !== null) return limits.forcedTtl;
  if (check.ttl !== null && limits.maxTtl !== null && check.ttl > limits.maxTtl) {
    throw invalid(`ttl may be at most ${limits.maxTtl} seconds on the ${check.plan} plan`, [
      { loc: ['body', 'ttl'], msg: `must be at most ${limits.maxTtl}`, type: 'less_than_equal' },
    ]);
  }
  return check.ttl;
}
