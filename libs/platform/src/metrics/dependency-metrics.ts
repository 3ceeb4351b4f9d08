// spawnpoint_dependency_up{dependency}: whether each dependency of this process answers, from the same
// checks as its readiness (runChecks), run when scraped with a deadline short enough that a hung dependency
// shows as 0 rather than leaving the scrape without the series.
import { ReadinessChecks, runChecks } from '../nest/checks';
import type { GaugeDefinition } from './service-metrics';

/** Check name → dependency label; a check not named here gets no series. */
export const DEPENDENCY_LABELS: Record<string, string> = { bus: 'nats', eventStore: 'eventstore', database: 'database' };

const SCRAPE_CHECK_MS = 1000;

/** `checks`: the readiness checks as they are now. */
export function dependencyGauges(checks: () => ReadinessChecks, labels: Record<string, string> = DEPENDENCY_LABELS): GaugeDefinition[] {
  const named = () => Object.fromEntries(Object.entries(checks()).filter(([name]) => labels[name]));
  return [
    {
      name: 'spawnpoint_dependency_up', help: 'Whether a dependency answers this process\'s readiness check (1) or not (0): database, nats, eventstore', labelNames: ['dependency'],
      source: async () => Object.entries((await runChecks(named(), SCRAPE_CHECK_MS)).checks)
        .map(([name, check]) => ({ labels: { dependency: labels[name] }, value: check.ok ? 1 : 0 })),
    },
  ];
}
