import { type CheckpointStore, PostgresCheckpointStore, PostgresEventStore } from '@spawnpoint/eventstore';
import { captureLogs } from '../../../logging/src/testing';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/databases';
import { NATS_URL } from '../../../../test/support/nats';
import type { Bus, IntegrationEvent } from '../bus';
import { InProcessBus } from '../in-process/in-process-bus';
import type { NatsBus } from '../nats/nats-bus';
import { natsTestStream, type NatsTestStream } from '../testing/nats-test-bus';
import { waitFor } from '../testing/wait';
import { EventRelay } from './event-relay';

describe('EventRelay (PostgreSQL store -> NATS)', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;
  let checkpoints: PostgresCheckpointStore;
  let stream: NatsTestStream;
  let relayBus: NatsBus;
  let consumerBus: NatsBus;
  let received: IntegrationEvent[];
  const relays: EventRelay[] = [];

  beforeEach(async () => {
    db = await createTestDatabase('relay');
    store = new PostgresEventStore({ connectionString: db.url });
    await store.migrate();
    checkpoints = new PostgresCheckpointStore(store.pool);
    await checkpoints.migrate();
    stream = natsTestStream(NATS_URL);
    relayBus = await stream.connect('relay');
    consumerBus = await stream.connect('consumer');
    received = [];
    await consumerBus.consume({ durable: 'everything', filters: ['>'] }, (e) => {
      received.push(e);
    });
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    await Promise.all(relays.splice(0).map((r) => r.stop()));
    await Promise.all([relayBus.close(), consumerBus.close()]);
    await stream.delete();
    await store.close();
    await db.drop();
  });

  const relay = (options: { bus?: Bus; checkpoints?: CheckpointStore; categories?: string[] } = {}) => {
    const r = new EventRelay({ store, bus: relayBus, checkpoints, ...options });
    relays.push(r);
    return r;
  };
  const append = (streamId: string, ...types: string[]) =>
    store.appendToStream(streamId, types.map((type) => ({ type, data: { type } })), 'any');
  const allIds = async () => (await store.readAll({})).map((e) => e.id);
  /** Every event in the store arrived, in position order, and (checked with a last event) no more. */
  const expectEachDeliveredOnce = async () => {
    await append('test-sentinel', 'Sentinel');
    const expected = await allIds();
    await waitFor(() => received.length >= expected.length, 10_000, `${expected.length} deliveries`);
    expect(received.map((e) => e.id)).toEqual(expected);
  };

  it('publishes events appended before and after it started, each once, with their trace context', async () => {
    await append('server-1', 'ServerRequested', 'ServerStarted');
    await store.appendToStream(
      'build-7',
      [{ type: 'BuildReady', data: { image: 'x' }, metadata: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } }],
      'no_stream',
    );
    const traceparents: Array<string | undefined> = [];
    await consumerBus.consume({ durable: 'builds', filters: ['build.*'] }, (_e, ctx) => {
      traceparents.push(ctx.headers.traceparent);
    });

    await relay().start();
    await append('server-1', 'ServerStopped');
    await append('project-3', 'ProjectCreated');
    await expectEachDeliveredOnce();

    const [recorded] = (await store.readStream('build-7')).events;
    expect(received.find((e) => e.id === recorded.id)).toEqual({
      id: recorded.id,
      type: 'BuildReady',
      streamId: 'build-7',
      revision: 0,
      position: recorded.position.toString(),
      data: { image: 'x' },
      metadata: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
    });
    expect(traceparents).toEqual(['00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01']);
  });

  it('loses nothing and delivers nothing twice when stopped mid-way and restarted', async () => {
    const first = relay();
    await first.start();
    for (let i = 0; i < 10; i++) await append(`server-${i}`, 'ServerStarted');
    await waitFor(() => received.length >= 3, 10_000, 'first deliveries');
    await first.stop();
    for (let i = 10; i < 20; i++) await append(`server-${i}`, 'ServerStarted');

    expect(await checkpoints.load('relay')).toBeGreaterThan(0n);
    await relay().start();
    await expectEachDeliveredOnce();
  });

  it('republishes after a crash before its checkpoint was saved, and the stream drops the duplicates', async () => {
    const forgetful: CheckpointStore = { load: (name) => checkpoints.load(name), save: async () => undefined };
    for (let i = 0; i < 5; i++) await append(`server-${i}`, 'ServerStarted');
    const crashed = relay({ checkpoints: forgetful });
    await crashed.start();
    await waitFor(() => received.length === 5, 10_000, 'first deliveries');
    await crashed.stop();

    await relay().start();
    await expectEachDeliveredOnce();
  });

  it('relays only the configured categories', async () => {
    await append('server-1', 'ServerStarted');
    await append('lobby-1', 'LobbyOpened');
    await relay({ categories: ['server', 'test'] }).start();
    await append('test-sentinel', 'Sentinel');
    await waitFor(() => received.some((e) => e.type === 'Sentinel'), 10_000, 'sentinel');
    expect(received.map((e) => e.type)).toEqual(['ServerStarted', 'Sentinel']);
  });

  it('reports its lag: events of its categories not published yet and the age of the oldest', async () => {
    const r = relay({ categories: ['server'] });
    await append('server-1', 'ServerStarted', 'ServerRunning');
    await append('lobby-1', 'LobbyOpened');
    const later = new Date(Date.now() + 60_000);
    const behind = await r.lag(later);
    expect(behind.events).toBe(2);
    expect(behind.seconds).toBeGreaterThanOrEqual(59);
    expect((await r.lag(later, 1)).events).toBe(1);
    await r.start();
    await waitFor(() => received.length >= 2, 10_000, 'relayed');
    expect(await r.lag(later)).toEqual({ events: 0, seconds: 0 });
  });

  it('retries an event whose publish failed, without skipping it or what follows', async () => {
    const logs = captureLogs();
    try {
      const bus = new InProcessBus();
      const attempts: string[] = [];
      await bus.consume({ durable: 'flaky', filters: ['>'] }, (e) => {
        attempts.push(e.type);
        if (attempts.length === 1) throw new Error('not yet');
      });
      await append('server-1', 'ServerStarted', 'ServerStopped');
      await relay({ bus }).start();
      await waitFor(() => attempts.length === 3, 10_000, 'retried delivery');
      expect(attempts).toEqual(['ServerStarted', 'ServerStarted', 'ServerStopped']);
      expect(logs.records().filter((r) => r.level === 'error').map((r) => [r.component, r.msg])).toEqual([['relay', expect.stringMatching(/^relay .+: stopped at position \d+, retrying in \d+ ms$/)]]);
      await bus.close();
    } finally {
      logs.restore();
    }
  });
});
