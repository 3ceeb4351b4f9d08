import { randomUUID } from 'node:crypto';
import { NATS_URL } from '../../../../test/support/nats';
import type { IntegrationEvent } from '../bus';
import { describeBusContract } from '../testing/bus-contract';
import { natsTestStream } from '../testing/nats-test-bus';
import { connect, nanos } from 'nats';
import { DEFAULT_EVENT_RETENTION } from './event-stream';
import { NatsBus } from './nats-bus';
import { sleep, waitFor } from '../testing/wait';

describeBusContract('NATS', async () => {
  const stream = natsTestStream(NATS_URL);
  const bus = await stream.connect('contract-a');
  const other = await stream.connect('contract-b');
  return {
    bus,
    other,
    async cleanup() {
      await Promise.all([bus.close(), other.close()]);
      await stream.delete();
    },
  };
});

describe('NatsBus', () => {
  const stream = natsTestStream(NATS_URL);
  afterAll(() => stream.delete());

  const event = (type: string): IntegrationEvent => ({
    id: randomUUID(),
    type,
    streamId: 'server-1',
    revision: 0,
    position: '1',
    data: {},
    metadata: {},
  });

  it('resumes a restarted durable consumer after the last acked event', async () => {
    const publisher = await stream.connect('publisher');
    const first = await stream.connect('consumer-1');
    const seen: string[] = [];
    const options = { durable: 'resume', filters: ['server.*'] };
    const before = [event('ServerStarted'), event('ServerStopped')];
    const after = [event('ServerStarted'), event('ServerStopped')];

    const unsubscribe = await first.consume(options, (e) => {
      seen.push(e.id);
    });
    for (const e of before) await publisher.publish(e);
    await waitFor(() => seen.length === 2, 5000, 'first deliveries');
    await unsubscribe();
    await first.close();

    for (const e of after) await publisher.publish(e);
    const second = await stream.connect('consumer-2');
    await second.consume(options, (e) => {
      seen.push(e.id);
    });
    await waitFor(() => seen.length >= 4, 5000, 'deliveries after restart');
    // Anything re-received would show up after the expected four.
    const sentinel = event('ServerCrashed');
    await publisher.publish(sentinel);
    await waitFor(() => seen.includes(sentinel.id), 5000, 'sentinel');
    expect(seen).toEqual([...before, ...after, sentinel].map((e) => e.id));

    await Promise.all([publisher.close(), second.close()]);
  });

  it('sanitises event subjects and republishing the same id is dropped by the server', async () => {
    const bus = await stream.connect('sanitise');
    const seen: IntegrationEvent[] = [];
    await bus.consume({ durable: 'odd', filters: ['odd_category.*'] }, (e) => {
      seen.push(e);
    });
    const odd = { ...event('Type.With Dots*>'), streamId: 'odd.category-1' };
    await bus.publish(odd);
    await bus.publish(odd);
    await waitFor(() => seen.length === 1, 5000, 'delivery');
    expect(seen[0]).toEqual(odd);
    await bus.close();
  });

  it('reports each durable consumer\'s backlog (num_pending) while its handler is behind, and none once it stopped', async () => {
    const own = natsTestStream(NATS_URL);
    const bus = await own.connect('lagging');
    const publisher = await own.connect('lag-publisher');
    try {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let handled = 0;
      const stop = await bus.consume({ durable: 'slow', filters: ['server.*'] }, async () => {
        await held;
        handled++;
      });
      expect(await bus.consumerLag()).toEqual([{ durable: 'slow', pending: 0 }]);
      // The consumer holds at most 16 messages in flight: the rest wait on the server.
      for (let i = 0; i < 40; i++) await publisher.publish(event('ServerStarted'));
      let pending = 0;
      for (const deadline = Date.now() + 5000; pending < 20 && Date.now() < deadline; await sleep(50)) pending = (await bus.consumerLag())[0]?.pending ?? 0;
      expect(pending).toBeGreaterThanOrEqual(20);
      release();
      await waitFor(() => handled === 40, 10_000, 'all handled');
      expect(await bus.consumerLag()).toEqual([{ durable: 'slow', pending: 0 }]);
      await stop();
      expect(await bus.consumerLag()).toEqual([]);
    } finally {
      await Promise.all([bus.close(), publisher.close()]);
      await own.delete();
    }
  });

  it('keeps the event stream within its retention (age and bytes), set at connect and updated on the next', async () => {
    const own = natsTestStream(NATS_URL);
    const nc = await connect({ servers: NATS_URL });
    try {
      const jsm = await nc.jetstreamManager();
      const first = await NatsBus.connect({ ...own.options, name: 'retention-default' });
      const defaults = (await jsm.streams.info(own.options.streamName!)).config;
      expect([defaults.max_age, defaults.max_bytes]).toEqual([nanos(DEFAULT_EVENT_RETENTION.maxAgeMs), DEFAULT_EVENT_RETENTION.maxBytes]);
      await first.close();

      const bus = await NatsBus.connect({ ...own.options, name: 'retention-small', retention: { maxAgeMs: 3_600_000, maxBytes: 4096 } });
      const info = await jsm.streams.info(own.options.streamName!);
      expect([info.config.max_age, info.config.max_bytes]).toEqual([nanos(3_600_000), 4096]);
      // Past the byte limit the oldest events go: the stream stays within it and its first sequence moves on.
      for (let i = 0; i < 30; i++) await bus.publish({ ...event('Filler'), data: { pad: 'x'.repeat(200) } });
      const state = (await jsm.streams.info(own.options.streamName!)).state;
      expect(state.bytes).toBeLessThanOrEqual(4096);
      expect(state.first_seq).toBeGreaterThan(1);
      expect(state.last_seq).toBe(30);
      await bus.close();
    } finally {
      await nc.close();
      await own.delete();
    }
  });
});
