// A process's own probe endpoints (its ops port: HEALTH_PORT / METRICS_PORT, 9464 by default), for
// Kubernetes: `GET /livez` answers while the process runs and its event loop turns; `GET /readyz` answers 200 once the service has started and its own bus,
// event store and database answer, else 503 with the failing checks. It listens from the first moment of
// the process (migrations can take a while), so a liveness probe never kills a service that is starting.
// `GET /metrics`: the process's Prometheus registry (metrics/registry.ts). Not on the public API port.
import { createServer, Server } from 'node:http';
import { logger } from '@spawnpoint/logging';
import { enableMetrics, metricsEnabled, renderMetrics } from '../metrics/registry';
import { dependencyGauges } from '../metrics/dependency-metrics';
import { registerGauges } from '../metrics/service-metrics';
import { ReadinessChecks, runChecks } from './checks';

export interface HealthServer {
  readonly port: number;
  /**
   * The service has started: readiness now runs these checks, and with metrics on so does each scrape
   * (spawnpoint_dependency_up, `dependencies`: check name → label; metrics/dependency-metrics.ts).
   */
  ready(checks: ReadinessChecks, dependencies?: Record<string, string>): void;
  /** Shutting down: readiness fails at once (traffic drains), liveness still answers. */
  stopping(): void;
  /** Liveness also asks `alive` (standalone: its embedded database could be restarted): false answers /livez 503. */
  liveness(alive: () => boolean): void;
  close(): Promise<void>;
}

/** The ops port when neither HEALTH_PORT nor METRICS_PORT says otherwise (OpenTelemetry's Prometheus port). */
export const DEFAULT_OPS_PORT = 9464;

export interface OpsPort {
  port: number;
  /** Where it came from: a setting (a port it cannot bind stops the start) or the default (it may be taken). */
  from: 'HEALTH_PORT' | 'METRICS_PORT' | 'default';
}

/**
 * The ops port (probes and /metrics): HEALTH_PORT, else METRICS_PORT (one setting under two names), else
 * 9464. `off` turns the ops server, and with it the metrics, off; `0` takes any free port. Unset and empty
 * are the same.
 */
export function opsPortFrom(env: NodeJS.ProcessEnv): OpsPort | null {
  const from = env.HEALTH_PORT !== undefined && env.HEALTH_PORT !== '' ? 'HEALTH_PORT' : env.METRICS_PORT !== undefined && env.METRICS_PORT !== '' ? 'METRICS_PORT' : 'default';
  if (from === 'default') return { port: DEFAULT_OPS_PORT, from };
  const raw = env[from]!.trim();
  if (raw.toLowerCase() === 'off') return null;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535) throw new Error(`${from} must be a port number or "off", not "${env[from]}"`);
  return { port, from };
}

/**
 * The process's ops server on its ops port, with metrics recorded from now on (call it before the services
 * register their handlers). The default port taken by another process on this host (a second platform, a
 * distributed platform's other apps) leaves this process without one, in a warning; a port that was set and
 * cannot be bound stops the start.
 */
export async function startOpsServer(service: string, env: NodeJS.ProcessEnv, host: string): Promise<HealthServer | null> {
  const ops = opsPortFrom(env);
  if (ops === null) return null;
  try {
    const server = await startHealthServer(service, ops.port, host);
    enableMetrics(service);
    return server;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (ops.from === 'default' && code === 'EADDRINUSE') {
      logger('ops').warn(`the ops port ${ops.port} (probes and /metrics) is in use on this host, so this process serves neither; set METRICS_PORT to a free port (0: any), or METRICS_PORT=off`);
      return null;
    }
    throw new Error(`${ops.from === 'default' ? 'the default ops port' : ops.from} ${ops.port}: ${code === 'EADDRINUSE' ? 'in use by another process' : (err as Error).message}`);
  }
}

export async function startHealthServer(service: string, port: number, host = '0.0.0.0'): Promise<HealthServer> {
  let phase: 'starting' | 'ready' | 'stopping' = 'starting';
  let checks: ReadinessChecks = {};
  let alive: () => boolean = () => true;
  let unregisterGauges: (() => void) | null = null;
  const server: Server = createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(body));
    };
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, { error: 'Only GET' });
    if (path === '/livez') return alive() ? send(200, { status: 'ok', service }) : send(503, { status: 'failed', service });
    if (path === '/readyz') {
      if (phase !== 'ready') return send(503, { status: phase, service });
      void runChecks(checks).then((r) => send(r.ok ? 200 : 503, { status: r.ok ? 'ok' : 'unavailable', service, checks: r.checks }));
      return;
    }
    if (path === '/metrics') {
      void renderMetrics().then(
        ({ contentType, body }) => { res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }); res.end(body); },
        (err: unknown) => send(500, { error: `metrics: ${(err as Error).message}` }),
      );
      return;
    }
    send(404, { error: `No route ${path}; try /livez, /readyz or /metrics` });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => { server.off('error', reject); resolve(); });
  });
  server.unref();
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    liveness(check) {
      alive = check;
    },
    ready(given, dependencies) {
      checks = given;
      if (phase === 'starting') phase = 'ready';
      if (metricsEnabled() && !unregisterGauges) unregisterGauges = registerGauges(dependencyGauges(() => checks, dependencies));
    },
    stopping() { phase = 'stopping'; },
    close: () => new Promise<void>((resolve) => {
      unregisterGauges?.();
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
