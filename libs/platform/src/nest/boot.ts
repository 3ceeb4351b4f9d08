// Starts one service as its own process (distributed mode): no public HTTP, just the bus and its ops port
// (probes and metrics: health-server.ts).
import { Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { EventStore } from '@spawnpoint/eventstore';
import type { Bus } from '@spawnpoint/messaging';
import type { ReadModels } from '@spawnpoint/read-models';
import { logger } from '@spawnpoint/logging';
import { loadConfig } from './config';
import { HealthServer, startOpsServer } from './health-server';
import { setupLogging } from './logging';
import { NestLogger } from './nest-logger';
import { PlatformModule } from './platform.module';
import { exitOnShutdownSignals } from './shutdown';
import { BUS, EVENT_STORE, READ_MODELS } from './tokens';
import { setupTracing } from './tracing';

const log = logger('lifecycle');

/** One line for a start that failed (the stack only when SPAWNPOINT_DEBUG asks for it), then exit 1. */
export function failedStart(name: string, err: unknown): never {
  const reason = err instanceof Error ? err.message : String(err);
  log.fatal(process.env.SPAWNPOINT_DEBUG && err instanceof Error ? { err } : {}, `spawnpoint ${name}: could not start: ${reason}`);
  process.exit(1);
}

export async function bootService(name: string, serviceModule: Type<unknown>): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  let health: HealthServer | null;
  try {
    setupLogging(name);
    setupTracing(name);
    config = loadConfig(process.env, 'distributed');
    // Metrics are recorded only where they can be scraped (before the services register their handlers).
    health = await startOpsServer(name, process.env, config.host);
  } catch (err) {
    failedStart(name, err);
  }
  @Module({ imports: [PlatformModule.forRoot(config, name), serviceModule] })
  class ServiceRoot {}
  // abortOnError false: a failed start is reported below, not by process.abort().
  const started = NestFactory.createApplicationContext(ServiceRoot, { logger: new NestLogger(), abortOnError: false });
  // Not Nest's shutdown hooks (they re-raise the signal after closing: exit 143); from the first moment.
  exitOnShutdownSignals(name, async () => {
    health?.stopping();
    const app = await started.catch(() => null);
    await app?.close();
    await health?.close();
  });
  try {
    const app = await started;
    const bus = app.get<Bus>(BUS);
    const store = app.get<EventStore>(EVENT_STORE);
    const db = app.get<ReadModels>(READ_MODELS);
    health?.ready({ bus: () => bus.ping(), eventStore: () => store.ping(), database: () => db.$queryRaw`SELECT 1` });
  } catch (err) {
    failedStart(name, err);
  }
  log.info(`spawnpoint ${name} service ready (NATS ${config.natsUrl}${health ? `; health on port ${health.port}` : ''})`);
}
