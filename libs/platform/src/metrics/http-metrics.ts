// The gateway's RED metrics. `route` is the matched route template (`/api/v3/servers/:instance_id`),
// `unmatched` when no route matched: never the raw URL. Series are held per label set so a request
// costs two map lookups, one add and one bucket scan (hot-path-metrics.ts).
import { CounterSeries, HistogramSeries, HotCounter, HotHistogram } from './hot-path-metrics';
import { metricsRegistry } from './registry';

const requests = new HotCounter(
  'spawnpoint_http_requests_total', 'HTTP requests answered, by method, route template and status', ['method', 'route', 'status'], metricsRegistry,
);
const duration = new HotHistogram(
  'spawnpoint_http_request_duration_seconds', 'Time from request to response, by method and route template', ['method', 'route'],
  [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], metricsRegistry,
);

const counters = new Map<string, CounterSeries>();
const timers = new Map<string, HistogramSeries>();

export function observeHttpRequest(method: string, route: string | undefined, status: number, seconds: number): void {
  const r = route ?? 'unmatched';
  const key = `${method} ${r}`;
  let timer = timers.get(key);
  if (!timer) timers.set(key, (timer = duration.labels(method, r)));
  timer.observe(seconds);
  const counterKey = `${key} ${status}`;
  let counter = counters.get(counterKey);
  if (!counter) counters.set(counterKey, (counter = requests.labels(method, r, String(status))));
  counter.inc();
}
