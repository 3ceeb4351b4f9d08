// The gateway's RED metrics. `route` is the matched route template (`/api/v3/servers/:instance_id`),
// `unmatched` when no route matched: never the raw URL. Children are cached per label set so a request
// costs one map lookup, one inc and one observe.
import { Counter, Histogram } from 'prom-client';
import { metricsRegistry } from './registry';

const requests = new Counter({
  name: 'spawnpoint_http_requests_total', help: 'HTTP requests answered, by method, route template and status',
  labelNames: ['method', 'route', 'status'], registers: [metricsRegistry],
});
const duration = new Histogram({
  name: 'spawnpoint_http_request_duration_seconds', help: 'Time from request to response, by method and route template',
  labelNames: ['method', 'route'], buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers: [metricsRegistry],
});

const counters = new Map<string, { inc(): void }>();
const timers = new Map<string, { observe(v: number): void }>();

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
