// Every metric name the platform can expose, read from its prom-client registry once every metric is in it:
// Node's default metrics and build info (enableMetrics), the counters and histograms defined at import, and
// each scrape-time gauge registered through its definition (their sources never run here). Histograms add
// _bucket, _sum and _count; Prometheus adds `up` per target. A metric renamed in the code leaves a dashboard
// or alert that still names the old one failing the tests.
import type { ReadModels } from '@spawnpoint/read-models';
import type { EventStore } from '@spawnpoint/eventstore';
import {
  consumerGauges, dependencyGauges, enableMetrics, metricsRegistry, projectionGauges, registerGauges, relayGauges,
} from '../../libs/platform/src/metrics';
// Each service's own gauges, from its app.
import { machineGauges, poolTargetGauges, serverGauges } from '../../apps/servers/src/server-gauges';
import { lobbyGauges } from '../../apps/lobbies/src/lobby-gauges';
import { queueGauges } from '../../apps/matchmaking/src/queue-gauges';
import { lobbyStreamGauges } from '../../apps/gateway/src/lobby-streams/lobby-stream-gauges';

export async function metricCatalog(): Promise<Set<string>> {
  enableMetrics('catalog', '0.0.0');
  const db = {} as ReadModels;
  const unregister = registerGauges([
    ...serverGauges(db), ...lobbyGauges(db), ...queueGauges(db), ...machineGauges({ kind: 'process', running: () => [] }),
    ...poolTargetGauges(() => new Map()), ...lobbyStreamGauges(() => 0), ...projectionGauges(db, {} as EventStore, () => []),
    ...relayGauges('catalog', () => null), ...consumerGauges({ consumerLag: async () => [] } as never), ...dependencyGauges(() => ({})),
  ]);
  try {
    const names = new Set(['up']);
    for (const metric of await metricsRegistry.getMetricsAsJSON()) {
      names.add(metric.name);
      if (String(metric.type) === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${metric.name}${suffix}`);
      if (String(metric.type) === 'summary') for (const suffix of ['_sum', '_count']) names.add(`${metric.name}${suffix}`);
    }
    return names;
  } finally {
    unregister();
  }
}
