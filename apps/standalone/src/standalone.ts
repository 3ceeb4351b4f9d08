// Standalone mode: every service in one process, in-process bus, embedded PostgreSQL (unless
// DATABASE_URL is given), game servers as local processes.
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { mkdirSync } from 'node:fs';
import { BuildsModule } from '@spawnpoint/builds';
import { createHttpApp, GatewayModule, legacyLobbyApiFor, legacyPort } from '@spawnpoint/gateway';
import { Bus } from '@spawnpoint/messaging';
import { BUS, EVENT_STORE, HealthServer, loadConfig, PlatformModule, READ_MODELS, startOpsServer } from '@spawnpoint/platform';
import { LobbiesModule } from '@spawnpoint/lobbies';
import { MatchmakingModule } from '@spawnpoint/matchmaking';
import { BackfillModule } from '@spawnpoint/backfill';
import { ProjectsModule } from '@spawnpoint/projects';
import { ServersModule } from '@spawnpoint/servers';
import { lockDataDir } from './data-dir-lock';
import { DefaultProject, ensureDefaultProject } from './default-project';
import { RunningPostgres, startEmbeddedPostgres } from './embedded-postgres';

export interface Standalone {
  url: string;
  /** Base URL of the legacy lobby API (second listener); null when LEGACY_PORT turns it off. */
  legacyUrl: string | null;
  project: DefaultProject;
  /** The ops server's port (probes and /metrics of every service here); null when off or its default port was taken. */
  opsPort: number | null;
  close(): Promise<void>;
}

export async function startStandalone(env: NodeJS.ProcessEnv = process.env): Promise<Standalone> {
  const config = loadConfig(env, 'standalone');
  mkdirSync(config.dataDir, { recursive: true });
  const lock = lockDataDir(config.dataDir);
  let pg: RunningPostgres | null = null;
  // One registry for all of its services, one ops port; on before the services register their handlers.
  let ops: HealthServer | null = null;
  try {
    ops = await startOpsServer('standalone', env, config.host);
  } catch (err) {
    lock.release();
    throw err;
  }
  if (!env.DATABASE_URL) {
    try {
      pg = await startEmbeddedPostgres(config.dataDir, env.SPAWNPOINT_PG_PORT ? Number(env.SPAWNPOINT_PG_PORT) : undefined);
    } catch (err) {
      await ops?.close();
      lock.release();
      throw err;
    }
    config.databaseUrl = pg.url;
    const db = pg;
    ops?.liveness(() => db.alive());
  }
  @Module({ imports: [PlatformModule.forRoot(config, 'standalone'), ProjectsModule, LobbiesModule, MatchmakingModule, BackfillModule, BuildsModule, ServersModule, GatewayModule] })
  class StandaloneRoot {}
  let started: Awaited<ReturnType<typeof createHttpApp>> | null = null;
  try {
    // Signals are main.ts's: the database must close after the app, never beside it.
    const app = (started = await createHttpApp(StandaloneRoot, { shutdownHooks: false }));
    const legacy = legacyLobbyApiFor(app, { port: legacyPort(env, config), host: config.host });
    await app.listen(config.port, config.host);
    const legacyApi = await legacy.start();
    const project = await ensureDefaultProject(app.get<Bus>(BUS), config.dataDir, { server: config.devServerKey, client: config.devClientKey });
    const [bus, store, db] = [app.get<Bus>(BUS), app.get<{ ping(): Promise<void> }>(EVENT_STORE), app.get<{ $queryRaw(q: TemplateStringsArray): Promise<unknown> }>(READ_MODELS)];
    // spawnpoint_dependency_up: the store and the embedded database (the bus is in memory: there is no NATS to be down).
    ops?.ready({ bus: () => bus.ping(), eventStore: () => store.ping(), database: () => db.$queryRaw`SELECT 1` }, { eventStore: 'eventstore', database: 'database' });
    const address = app.getHttpServer().address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    return {
      url: `http://127.0.0.1:${port}`,
      legacyUrl: legacyApi ? `http://127.0.0.1:${legacyApi.port}` : null,
      project,
      opsPort: ops?.port ?? null,
      // In order: HTTP (event streams ended, then the listeners), services (handlers, relays and their
      // checkpoints, timers, games), the read models and the store, and last the database.
      async close() {
        ops?.stopping();
        await app.close();
        await ops?.close();
        await pg?.stop();
        lock.release();
      },
    };
  } catch (err) {
    await started?.close().catch(() => undefined);
    await ops?.close();
    await pg?.stop();
    lock.release();
    throw err;
  }
}
