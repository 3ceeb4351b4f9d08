// The store selection (ADR-0009): EVENTSTORE_URL picks EventStoreDB, otherwise PostgreSQL on DATABASE_URL.
import { loadConfig } from './config';
import { chooseEventStore, redactUrl } from './event-store-factory';

const DB = 'postgres://spawnpoint@db:5432/spawnpoint';

describe('chooseEventStore', () => {
  it('is PostgreSQL on DATABASE_URL when EVENTSTORE_URL is unset or empty, in both modes', () => {
    for (const mode of ['distributed', 'standalone'] as const) {
      expect(chooseEventStore(loadConfig({ DATABASE_URL: DB }, mode))).toEqual({ kind: 'postgres', connectionString: DB, poolSize: 10 });
      expect(chooseEventStore(loadConfig({ DATABASE_URL: DB, EVENTSTORE_URL: '' }, mode))).toEqual({ kind: 'postgres', connectionString: DB, poolSize: 10 });
      expect(chooseEventStore(loadConfig({ DATABASE_URL: DB, SPAWNPOINT_DB_POOL_SIZE: '3' }, mode))).toEqual({ kind: 'postgres', connectionString: DB, poolSize: 3 });
    }
  });

  it('is EventStoreDB at EVENTSTORE_URL when set, with the checkpoints in PostgreSQL on DATABASE_URL', () => {
    const config = loadConfig({ DATABASE_URL: DB, EVENTSTORE_URL: 'esdb://esdb:2113?tls=false' });
    expect(config.eventStoreUrl).toBe('esdb://esdb:2113?tls=false');
    expect(chooseEventStore(config)).toEqual({ kind: 'eventstoredb', connectionString: 'esdb://esdb:2113?tls=false', checkpointsUrl: DB });
  });

  it('treats a blank EVENTSTORE_URL as unset', () => {
    expect(chooseEventStore({ databaseUrl: DB, eventStoreUrl: '  ' }).kind).toBe('postgres');
  });
});

describe('redactUrl', () => {
  it('hides the password of a connection string, and nothing else', () => {
    expect(redactUrl('esdb://admin:changeit@esdb:2113?tls=false')).toBe('esdb://admin:***@esdb:2113?tls=false');
    expect(redactUrl('esdb+discover://ops:p%40ss@cluster.local:2113')).toBe('esdb+discover://ops:***@cluster.local:2113');
    expect(redactUrl('esdb://esdb:2113?tls=false')).toBe('esdb://esdb:2113?tls=false');
  });
});
