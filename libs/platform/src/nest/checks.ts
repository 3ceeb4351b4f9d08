// Dependency checks with a deadline: readiness (health-server.ts), the dependency gauges a scrape reads
// (metrics/dependency-metrics.ts) and the services' reports all run them; on their own so neither side
// imports the other.
import type { DependencyCheck } from '@spawnpoint/proto';

export const CHECK_MS = 1500;

export type ReadinessChecks = Record<string, () => Promise<unknown>>;

/** `work`, or a "timed out" rejection after `ms`. */
export function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timed out')), ms)))])
    .finally(() => clearTimeout(timer));
}

/** Runs one check with a deadline: never throws. */
export async function checkWithin(fn: () => Promise<unknown>, ms = CHECK_MS): Promise<DependencyCheck> {
  try {
    await within(ms, fn());
    return { ok: true };
  } catch (err) {
    return { ok: false, detail: (err as Error).message };
  }
}

/** Runs every check at once, each within `ms`; ok when all pass. */
export async function runChecks(checks: ReadinessChecks, ms = CHECK_MS): Promise<{ ok: boolean; checks: Record<string, DependencyCheck> }> {
  const names = Object.keys(checks);
  const results = await Promise.all(names.map((name) => checkWithin(checks[name], ms)));
  const out = Object.fromEntries(names.map((name, i) => [name, results[i]]));
  return { ok: results.every((r) => r.ok), checks: out };
}
