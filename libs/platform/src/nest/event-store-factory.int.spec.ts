// Opening the selected store for real: PostgreSQL migrates and works; an EventStoreDB that cannot be
// reached (none runs here) fails the start at once with a message naming EVENTSTORE_URL, through the
// same path PlatformModule takes.
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventStoreDbEventStore, PostgresEventStore } from '@spawnpoint/eventstore';
import { createTestDatabase, TestDatabase } from '../../../../test/support/databases';
import { loadConfig } from './config';
import { chooseEventStore, openEventStore } from './event-store-factory';
import { PlatformModule } from './platform.module';
import { EVENT_STORE } from './tokens';

const NOTHING_LISTENS = 'esdb://admin:secret@127.0.0.1:1?tls=false';

describe('openEventStore', () => {
  let db: TestDatabase;
  beforeAll(async () => { db = await createTestDatabase('esf'); });
  afterAll(async () => { await db.drop(); });

  it('without EVENTSTORE_URL: a migrated PostgreSQL store whose relay checkpoints share its database', async () => {
    const opened = await openEventStore(chooseEventStore({ databaseUrl: db.url, eventStoreUrl: null }));
    try {
      expect(opened.store).toBeInstanceOf(PostgresEventStore);
      const { position } = await opened.store.appendToStream('test-1', [{ type: 'Tested', data: {} }], 'no_stream');
      await opened.checkpoints.save('relay-test', position);
      expect(await opened.checkpoints.load('relay-test')).toBe(position);
    } finally {
      await opened.close();
    }
  });

  it('with an unreachable EVENTSTORE_URL: fails fast, naming the setting (password hidden)', async () => {
    const t0 = Date.now();
    const opening = openEventStore(chooseEventStore({ databaseUrl: db.url, eventStoreUrl: NOTHING_LISTENS }));
    await expect(opening).rejects.toThrow(/EventStoreDB at EVENTSTORE_URL \(esdb:\/\/admin:\*\*\*@127\.0\.0\.1:1\?tls=false\) is unreachable: .*UNAVAILABLE/);
    await opening.catch((err: Error) => expect(err.message).not.toContain('secret'));
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it('with a server that never answers: gives up after the reach timeout', async () => {
    // A discovery URL on a closed port keeps the client retrying (6 x ~110 ms): the timeout ends it first.
    const opening = openEventStore(chooseEventStore({ databaseUrl: db.url, eventStoreUrl: 'esdb+discover://127.0.0.1:1?tls=false&maxDiscoverAttempts=6' }), { reachTimeoutMs: 200 });
    await expect(opening).rejects.toThrow(/EVENTSTORE_URL .* is unreachable: no answer within 200 ms/);
  });

  it('with a malformed EVENTSTORE_URL: says so, naming the setting', async () => {
    await expect(openEventStore(chooseEventStore({ databaseUrl: db.url, eventStoreUrl: 'http://esdb:2113' })))
      .rejects.toThrow(/EVENTSTORE_URL \(http:\/\/esdb:2113\) is not an EventStoreDB connection string/);
  });

  it('PlatformModule takes the same path: EVENTSTORE_URL set and unreachable, the service does not start', async () => {
    const config = { ...loadConfig({ EVENTSTORE_URL: NOTHING_LISTENS }, 'standalone'), databaseUrl: db.url };
    @Module({ imports: [PlatformModule.forRoot(config, 'test')] })
    class Root {}
    await expect(NestFactory.createApplicationContext(Root, { logger: false, abortOnError: false })).rejects.toThrow(/EVENTSTORE_URL/);
  });

  it('PlatformModule without EVENTSTORE_URL provides the PostgreSQL store', async () => {
    const config = { ...loadConfig({}, 'standalone'), databaseUrl: db.url };
    @Module({ imports: [PlatformModule.forRoot(config, 'test')] })
    class Root {}
    const app = await NestFactory.createApplicationContext(Root, { logger: false, abortOnError: false });
    try {
      expect(app.get(EVENT_STORE)).toBeInstanceOf(PostgresEventStore);
    } finally {
      await app.close();
    }
  });

  (process.env.EVENTSTORE_URL ? it : it.skip)('with EVENTSTORE_URL reachable (set in the environment): the EventStoreDB store', async () => {
    const opened = await openEventStore(chooseEventStore({ databaseUrl: db.url, eventStoreUrl: process.env.EVENTSTORE_URL! }));
    try {
      expect(opened.store).toBeInstanceOf(EventStoreDbEventStore);
    } finally {
      await opened.close();
    }
  });
});
