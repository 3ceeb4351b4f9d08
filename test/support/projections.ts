// What a projection suite needs: a fresh database with the event store and the read models migrated.
import { PostgresEventStore } from '@spawnpoint/eventstore';
import { closeReadModels, createReadModels, migrateReadModels, ReadModels } from '@spawnpoint/read-models';
import { createTestDatabase } from './databases';

export interface ProjectionTestBed {
  store: PostgresEventStore;
  models: ReadModels;
  /** The test database's connection string. */
  url: string;
  close(): Promise<void>;
}

export async function createProjectionTestBed(prefix: string): Promise<ProjectionTestBed> {
  const db = await createTestDatabase(prefix);
  const store = new PostgresEventStore({ connectionString: db.url });
  await store.migrate();
  await migrateReadModels(db.url);
  const models = createReadModels(db.url);
  return {
    store,
    models,
    url: db.url,
    async close() {
      await closeReadModels(models);
      await store.close();
      await db.drop();
    },
  };
}
