// Binds the ports to their adapters. Standalone: in-process bus; distributed: NATS. The event store is
// the one EVENTSTORE_URL selects (event-store-factory.ts: EventStoreDB, else PostgreSQL on `databaseUrl`);
// read models are Prisma on `databaseUrl`. The distributed gateway uses GatewayPlatformModule instead.
import { DynamicModule, Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { Bus, InProcessBus, NatsBus } from '@spawnpoint/messaging';
import { closeReadModels, createReadModels, migrateReadModels, ReadModels } from '@spawnpoint/read-models';
import { BlobStore } from '../blobs/blob-store';
import { PlatformConfig } from './config';
import { chooseEventStore, openEventStore, OpenedEventStore } from './event-store-factory';
import { meteredEventStore } from '../metrics/event-store-metrics';
import { metricsEnabled } from '../metrics/registry';
import { Platform } from './service-host';
import { BLOBS, BUS, CHECKPOINTS, CLOCK, CONFIG, EVENT_STORE, PLATFORM, READ_MODELS } from './tokens';

const OPENED_STORE = Symbol('OPENED_STORE');

@Global()
@Module({})
export class PlatformModule implements OnApplicationShutdown {
  constructor(
    @Inject(OPENED_STORE) private readonly store: OpenedEventStore,
    @Inject(BUS) private readonly bus: Bus,
    @Inject(READ_MODELS) private readonly db: ReadModels,
    @Inject(BLOBS) private readonly blobs: BlobStore,
  ) {}

  static forRoot(config: PlatformConfig, serviceName: string): DynamicModule {
    return {
      module: PlatformModule,
      // The CommandBus and QueryBus every service's routes dispatch to (global).
      imports: [CqrsModule.forRoot()],
      providers: [
        { provide: CONFIG, useValue: config },
        { provide: CLOCK, useValue: () => new Date() },
        { provide: OPENED_STORE, useFactory: () => openEventStore(chooseEventStore(config)) },
        { provide: EVENT_STORE, inject: [OPENED_STORE], useFactory: (opened: OpenedEventStore) => (metricsEnabled() ? meteredEventStore(opened.store) : opened.store) },
        { provide: CHECKPOINTS, inject: [OPENED_STORE], useFactory: (opened: OpenedEventStore) => opened.checkpoints },
        {
          provide: BUS,
          useFactory: () =>
            config.mode === 'standalone' ? new InProcessBus() : NatsBus.connect({ servers: config.natsUrl, name: serviceName, retention: config.eventRetention }),
        },
        {
          provide: READ_MODELS,
          useFactory: async () => {
            await migrateReadModels(config.databaseUrl);
            return createReadModels(config.databaseUrl, config.dbPoolSize);
          },
        },
        // After READ_MODELS: its tables come with the read-model migrations.
        { provide: BLOBS, inject: [READ_MODELS], useFactory: () => new BlobStore(config.databaseUrl) },
        {
          provide: PLATFORM,
          inject: [CONFIG, CLOCK, EVENT_STORE, CHECKPOINTS, BUS, READ_MODELS],
          useFactory: (config, clock, store, checkpoints, bus, db): Platform => ({ config, clock, store, checkpoints, bus, db }),
        },
      ],
      exports: [CONFIG, CLOCK, EVENT_STORE, CHECKPOINTS, BUS, READ_MODELS, BLOBS, PLATFORM],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.bus.close().catch(() => undefined);
    await this.store.close().catch(() => undefined);
    await closeReadModels(this.db).catch(() => undefined);
    await this.blobs.close().catch(() => undefined);
  }
}
