// The distributed gateway's platform: the bus, the config and the clock, a PostgreSQL pool for its own
// edge state (idempotency keys, shared rate-limit buckets) and the blob store (the uploads it receives,
// the artifacts it serves). No event store and no migrations: the services own the schema. A gateway that starts before they have migrated waits for them (logging
// what it waits for) before it listens, so its readiness probe fails meanwhile instead of the process
// crash-looping. In standalone the gateway shares the process's PlatformModule instead.
import { DynamicModule, Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { Bus, NatsBus } from '@spawnpoint/messaging';
import { logger } from '@spawnpoint/logging';
import { closeReadModels, createReadModels, pendingReadModelMigrations, ReadModels } from '@spawnpoint/read-models';
import { BlobStore } from '../blobs/blob-store';
import { PlatformConfig } from './config';
import { BLOBS, BUS, CLOCK, CONFIG, READ_MODELS } from './tokens';

const lifecycle = logger('lifecycle');

const RETRY_MS = 1000;

/** Resolves once the services have applied every read-model migration this build knows. */
export async function waitForServicesSchema(databaseUrl: string, log: (line: string) => void = (line) => lifecycle.warn(line), retryMs = RETRY_MS): Promise<void> {
  let said = '';
  for (;;) {
    const waiting = await pendingReadModelMigrations(databaseUrl).then(
      (pending) => (pending.length ? `the services' migrations ${pending.join(', ')}` : null),
      (err: Error) => `the database (${err.message})`,
    );
    if (waiting === null) return;
    if (waiting !== said) log(`spawnpoint gateway: waiting for ${waiting}; retrying every ${retryMs} ms`);
    said = waiting;
    await new Promise((resolve) => setTimeout(resolve, retryMs));
  }
}

@Global()
@Module({})
export class GatewayPlatformModule implements OnApplicationShutdown {
  constructor(@Inject(BUS) private readonly bus: Bus, @Inject(READ_MODELS) private readonly db: ReadModels, @Inject(BLOBS) private readonly blobs: BlobStore) {}

  static forRoot(config: PlatformConfig): DynamicModule {
    return {
      module: GatewayPlatformModule,
      providers: [
        { provide: CONFIG, useValue: config },
        { provide: CLOCK, useValue: () => new Date() },
        { provide: BUS, useFactory: () => NatsBus.connect({ servers: config.natsUrl, name: 'gateway', retention: config.eventRetention }) },
        {
          // Edge state only (READ_MODELS is the token the gateway's idempotency store takes its pool from).
          provide: READ_MODELS,
          useFactory: async () => {
            await waitForServicesSchema(config.databaseUrl);
            return createReadModels(config.databaseUrl, Math.min(4, config.dbPoolSize));
          },
        },
        // Uploads are written and artifacts read here (after READ_MODELS: once the services' schema is there).
        { provide: BLOBS, inject: [READ_MODELS], useFactory: () => new BlobStore(config.databaseUrl) },
      ],
      exports: [CONFIG, CLOCK, BUS, READ_MODELS, BLOBS],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.bus.close().catch(() => undefined);
    await closeReadModels(this.db).catch(() => undefined);
    await this.blobs.close().catch(() => undefined);
  }
}
