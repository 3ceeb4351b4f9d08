// Binds the ports to their adapters. Standalone: in-process bus; distributed: NATS. Both use the
// PostgreSQL event store and Prisma read models on `databaseUrl`.
import { DynamicModule, Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { EventStore, PostgresCheckpointStore, PostgresEventStore } from '@spawnpoint/eventstore';
import { Bus, InProcessBus, NatsBus } from '@spawnpoint/messaging';
import { closeReadModels, createReadModels, migrateReadModels, ReadModels } from '@spawnpoint/read-models';
import { PlatformConfig } from './config';
import { Platform } from './service-host';
import { BUS, CHECKPOINTS, CLOCK, CONFIG, EVENT_STORE, PLATFORM, READ_MODELS } from './tokens';

@Global()
@Module({})
export class PlatformModule implements OnApplicationShutdown {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(BUS) private readonly bus: Bus,
    @Inject(READ_MODELS) private readonly db: ReadModels,
  ) {}

  static forRoot(config: PlatformConfig, serviceName: string): DynamicModule {
    return {
      module: PlatformModule,
      // The CommandBus and QueryBus every service's routes dispatch to (global).
      imports: [CqrsModule.forRoot()],
      providers: [
        { provide: CONFIG, useValue: config },
        { provide: CLOCK, useValue: () => new Date() },
        {
          provide: EVENT_STORE,
          useFactory: async () => {
            const store = new PostgresEventStore({ connectionString: config.databaseUrl });
            await store.migrate();
            return store;
          },
        },
        {
          provide: CHECKPOINTS,
          inject: [EVENT_STORE],
          useFactory: async (store: PostgresEventStore) => {
            const checkpoints = new PostgresCheckpointStore(store.pool);
            await checkpoints.migrate();
            return checkpoints;
          },
        },
        {
          provide: BUS,
          useFactory: () =>
            config.mode === 'standalone' ? new InProcessBus() : NatsBus.connect({ servers: config.natsUrl, name: serviceName }),
        },
        {
          provide: READ_MODELS,
          useFactory: async () => {
            await migrateReadModels(config.databaseUrl);
            return createReadModels(config.databaseUrl);
          },
        },
        {
          provide: PLATFORM,
          inject: [CONFIG, CLOCK, EVENT_STORE, CHECKPOINTS, BUS, READ_MODELS],
          useFactory: (config, clock, store, checkpoints, bus, db): Platform => ({ config, clock, store, checkpoints, bus, db }),
        },
      ],
      exports: [CONFIG, CLOCK, EVENT_STORE, CHECKPOINTS, BUS, READ_MODELS, PLATFORM],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.bus.close().catch(() => undefined);
    await this.store.close().catch(() => undefined);
    await closeReadModels(this.db).catch(() => undefined);
  }
}
