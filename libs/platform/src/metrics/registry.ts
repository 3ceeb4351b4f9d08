// One Prometheus registry per process (issue 15): standalone's services all report into it, and the ops
// server (HEALTH_PORT / METRICS_PORT) serves it at /metrics. Recording is switched on with the ops server,
// so a process nobody scrapes pays nothing. Labels are low-cardinality only: never an id or a raw URL.
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';

export const metricsRegistry = new Registry();

let enabled = false;

/** Recording is on (the ops server is up, or a test asked for it). */
export function metricsEnabled(): boolean {
  return enabled;
}

/**
 * Switches recording on: Node runtime metrics (default names, no prefix: `process_*`, `nodejs_*`, incl.
 * event-loop delay) and `spawnpoint_build_info{service,version}`. Idempotent.
 */
export function enableMetrics(service: string, version = platformVersion()): void {
  if (enabled) return;
  enabled = true;
  collectDefaultMetrics({ register: metricsRegistry, eventLoopMonitoringPrecision: 20 });
  new Gauge({ name: 'spawnpoint_build_info', help: 'The running build: always 1', labelNames: ['service', 'version'], registers: [metricsRegistry] })
    .set({ service, version }, 1);
}

export function platformVersion(): string {
  try {
    return (require('../../package.json') as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** The registry's text exposition (format 0.0.4). */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  return { contentType: metricsRegistry.contentType, body: await metricsRegistry.metrics() };
}
