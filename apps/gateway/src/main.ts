// Distributed mode: the HTTP gateway alone; every service is reached over NATS. Bus-only: no event
// store, no migrations (GatewayPlatformModule); PostgreSQL only for its edge state.
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { exitOnShutdownSignals, GatewayPlatformModule, loadConfig, setupTracing } from '@spawnpoint/platform';
import { GatewayModule } from './gateway.module';
import { createHttpApp } from './http-app';
import { legacyLobbyApiFor, legacyPort } from './legacy';

async function main(): Promise<void> {
  setupTracing('gateway');
  const config = loadConfig(process.env, 'distributed');
  @Module({ imports: [GatewayPlatformModule.forRoot(config), GatewayModule] })
  class GatewayRoot {}
  // From the first moment: a gateway still waiting for the services' schema has nothing to close yet.
  let app: Awaited<ReturnType<typeof createHttpApp>> | null = null;
  exitOnShutdownSignals('gateway', async () => { await app?.close(); });
  app = await createHttpApp(GatewayRoot, { shutdownHooks: false });
  const legacy = legacyLobbyApiFor(app, { port: legacyPort(process.env, config), host: config.host });
  await app.listen(config.port, config.host);
  const legacyApi = await legacy.start();
  console.log(`spawnpoint gateway listening on ${config.publicUrl}/api`);
  if (legacyApi) console.log(`legacy lobby API listening on port ${legacyApi.port}`);
}

void main().catch((err: unknown) => {
  console.error(`spawnpoint gateway: could not start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
