// Distributed mode: the HTTP gateway alone; every service is reached over NATS. Bus-only: no event
// store, no migrations (GatewayPlatformModule); PostgreSQL only for its edge state.
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { Bus } from '@spawnpoint/messaging';
import { logger } from '@spawnpoint/logging';
import { BUS, exitOnShutdownSignals, failedStart, GatewayPlatformModule, loadConfig, READ_MODELS, setupLogging, setupTracing, startOpsServer } from '@spawnpoint/platform';
import { GatewayModule } from './gateway.module';
import { createHttpApp } from './http-app';
import { legacyLobbyApiFor, legacyPort } from './legacy';

const log = logger('lifecycle');

async function main(): Promise<void> {
  setupLogging('gateway');
  setupTracing('gateway');
  const config = loadConfig(process.env, 'distributed');
  // The ops server (HEALTH_PORT / METRICS_PORT, 9464): probes and /metrics, never on the API port.
  const ops = await startOpsServer('gateway', process.env, config.host);
  @Module({ imports: [GatewayPlatformModule.forRoot(config), GatewayModule] })
  class GatewayRoot {}
  // From the first moment: a gateway still waiting for the services' schema has nothing to close yet.
  let app: Awaited<ReturnType<typeof createHttpApp>> | null = null;
  exitOnShutdownSignals('gateway', async () => { ops?.stopping(); await app?.close(); await ops?.close(); });
  app = await createHttpApp(GatewayRoot, { shutdownHooks: false });
  const legacy = legacyLobbyApiFor(app, { port: legacyPort(process.env, config), host: config.host });
  await app.listen(config.port, config.host);
  const legacyApi = await legacy.start();
  const bus = app.get<Bus>(BUS);
  const db = app.get<{ $queryRaw(query: TemplateStringsArray): Promise<unknown> }>(READ_MODELS);
  ops?.ready({ bus: () => bus.ping(), database: () => db.$queryRaw`SELECT 1` });
  log.info(`spawnpoint gateway listening on ${config.publicUrl}/api${ops ? `; health and metrics on port ${ops.port}` : ''}`);
  if (legacyApi) log.info(`legacy lobby API listening on port ${legacyApi.port}`);
}

void main().catch((err: unknown) => failedStart('gateway', err));
