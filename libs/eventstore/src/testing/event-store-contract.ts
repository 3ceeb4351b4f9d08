// The behaviour every EventStore adapter must have. Each adapter's int spec runs this suite against a
// real server. The store is shared by the tests, so each test writes to fresh categories and streams.
import { randomUUID } from 'node:crypto';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
// The bus's test harness: a real SDK recording spans in memory (test code only; nothing of it is built).
import { installTracing, type TracingHarness } from '../../../messaging/src/testing/tracing-harness';
import {
  categoryOf,
  EventData,
  EventHandler,
  EventStore,
  RecordedEvent,
  SubscribeOptions,
  Subscription,
  WrongExpectedVersion,
} from '../event-store';

export interface EventStoreFixture {
  store: EventStore;
  cleanup(): Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err,
  );
}

function expectStrictlyIncreasing(positions: bigint[]): void {
  for (let i = 1; i < positions.length; i++) {
    if (positions[i] <= positions[i - 1]) {
      throw new Error(`position ${positions[i]} at index ${i} does not follow ${positions[i - 1]}`);
    }
  }
}

const newCategory = () => `c${randomUUID().replace(/-/g, '').slice(0, 12)}`;
const newStream = (category = newCategory()) => `${category}-${randomUUID()}`;
const event = (type: string, data: unknown = { type }): EventData => ({ type, data });

export function describeEventStoreContract(name: string, factory: () => Promise<EventStoreFixture>): void {
  describe(`${name}: EventStore contract`, () => {
    let fixture: EventStoreFixture;
    let store: EventStore;
    const subscriptions: Subscription[] = [];

    beforeAll(async () => {
      fixture = await factory();
      store = fixture.store;
    });
    afterEach(async () => {
      await Promise.all(subscriptions.splice(0).map((s) => s.close()));
    });
    afterAll(async () => {
      await fixture?.cleanup();
    });

    function subscribe(options: SubscribeOptions, handler: EventHandler, onError?: (err: unknown) => void) {
      const subscription = store.subscribeToAll(options, handler, onError);
      subscriptions.push(subscription);
      return subscription;
    }

    function collect(options: SubscribeOptions) {
      const received: RecordedEvent[] = [];
      const subscription = subscribe(options, (e) => {
        received.push(e);
      });
      return { received, subscription };
    }

    describe('appendToStream', () => {
      it('creates a stream with no_stream; revisions are 0-based and consecutive', async () => {
        const stream = newStream();
        const first = await store.appendToStream(stream, [event('A'), event('B')], 'no_stream');
        const second = await store.appendToStream(stream, [event('C')], 1);

        expect(first.nextRevision).toBe(1);
        expect(second.nextRevision).toBe(2);
        const read = await store.readStream(stream);
        expect(read.revision).toBe(2);
        expect(read.events.map((e) => [e.revision, e.type, e.streamId])).toEqual([
          [0, 'A', stream],
          [1, 'B', stream],
          [2, 'C', stream],
        ]);
        expect(read.events[1].position).toBe(first.position);
        expect(read.events[2].position).toBe(second.position);
      });

      it('rejects no_stream when the stream exists', async () => {
        const stream = newStream();
        await store.appendToStream(stream, [event('A')], 'no_stream');

        const err = await rejection(store.appendToStream(stream, [event('B')], 'no_stream'));

        expect(err).toBeInstanceOf(WrongExpectedVersion);
        expect(err).toMatchObject({ streamId: stream, expected: 'no_stream', actual: 0 });
      });

      it('rejects a wrong expected revision with the actual one, writing nothing', async () => {
        const stream = newStream();
        await store.appendToStream(stream, [event('A'), event('B'), event('C')], 'no_stream');

        const err = await rejection(store.appendToStream(stream, [event('D')], 0));

        expect(err).toBeInstanceOf(WrongExpectedVersion);
        expect(err).toMatchObject({ streamId: stream, expected: 0, actual: 2 });
        expect((await store.readStream(stream)).events.map((e) => e.type)).toEqual(['A', 'B', 'C']);
      });

      it('reads a stream from a revision on (the tail after a cached state)', async () => {
        const stream = newStream();
        await store.appendToStream(stream, [event('A'), event('B'), event('C')], 'no_stream');

        const tail = await store.readStream(stream, 1);
        expect(tail.events.map((e) => [e.type, e.revision])).toEqual([['B', 1], ['C', 2]]);
        expect(tail.revision).toBe(2);
        expect(await store.readStream(stream, 3)).toEqual({ events: [], revision: 2 });
      });

      it('rejects an expected revision on a missing stream with actual -1', async () => {
        const stream = newStream();

        const err = await rejection(store.appendToStream(stream, [event('A')], 0));

        expect(err).toBeInstanceOf(WrongExpectedVersion);
        expect(err).toMatchObject({ expected: 0, actual: -1 });
        expect((await store.readStream(stream)).revision).toBe(-1);
      });

      it("appends with 'any' whatever the stream holds", async () => {
        const stream = newStream();

        const first = await store.appendToStream(stream, [event('A')], 'any');
        const second = await store.appendToStream(stream, [event('B')], 'any');

        expect([first.nextRevision, second.nextRevision]).toEqual([0, 1]);
        expect((await store.readStream(stream)).events.map((e) => e.type)).toEqual(['A', 'B']);
      });

      it('keeps given ids, generates missing ones, and round-trips data, metadata and createdAt', async () => {
        const stream = newStream();
        const id = randomUUID();
        const data = { name: 'Zoë ✓', count: 3, nested: { list: [1, 'two', null], flag: true } };
        const metadata = {
          projectId: 'p1',
          correlationId: randomUUID(),
          causationId: randomUUID(),
          traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
          extra: { deep: [1, 2] },
        };
        const before = Date.now();

        await store.appendToStream(stream, [{ id, type: 'A', data, metadata }, { type: 'B', data: [1, 2] }], 'no_stream');

        const [a, b] = (await store.readStream(stream)).events;
        expect(a).toMatchObject({ id, type: 'A', data, metadata });
        expect(b.id).toMatch(UUID);
        expect(b.id).not.toBe(id);
        expect(b.data).toEqual([1, 2]);
        expect(b.metadata).toEqual({});
        expect(a.createdAt).toBeInstanceOf(Date);
        expect(Math.abs(a.createdAt.getTime() - before)).toBeLessThan(60_000);
        expect(typeof a.position).toBe('bigint');
      });

      it('gives strictly increasing positions in append order, across streams and within a batch', async () => {
        const category = newCategory();
        const [s1, s2] = [newStream(category), newStream(category)];
        const results = [
          await store.appendToStream(s1, [event('A'), event('B')], 'no_stream'),
          await store.appendToStream(s2, [event('C')], 'no_stream'),
          await store.appendToStream(s1, [event('D'), event('E')], 1),
        ];

        const all = await store.readAll({ categories: [category] });

        expect(all.map((e) => e.type)).toEqual(['A', 'B', 'C', 'D', 'E']);
        expectStrictlyIncreasing(all.map((e) => e.position));
        expect(results.map((r) => r.position)).toEqual([all[1].position, all[2].position, all[4].position]);
      });
    });

    describe('readStream', () => {
      it('returns no events and revision -1 for a missing stream', async () => {
        expect(await store.readStream(newStream())).toEqual({ events: [], revision: -1 });
      });
    });

    describe('readAll and headPosition', () => {
      it('filters by category, starts after fromPosition and stops at limit', async () => {
        const [a, b] = [newCategory(), newCategory()];
        const before = await store.headPosition();
        const a1 = await store.appendToStream(newStream(a), [event('a1')], 'no_stream');
        await store.appendToStream(newStream(b), [event('b1')], 'no_stream');
        await store.appendToStream(newStream(a), [event('a2')], 'no_stream');
        await store.appendToStream(newStream(a), [event('a3')], 'no_stream');

        const types = async (options: SubscribeOptions & { limit?: number }) =>
          (await store.readAll(options)).map((e) => e.type);

        expect(await types({ categories: [a] })).toEqual(['a1', 'a2', 'a3']);
        expect(await types({ categories: [a], fromPosition: a1.position })).toEqual(['a2', 'a3']);
        expect(await types({ categories: [a], fromPosition: a1.position, limit: 1 })).toEqual(['a2']);
        expect(await types({ categories: [b, a] })).toEqual(['a1', 'b1', 'a2', 'a3']);
        expect(await types({ fromPosition: before })).toEqual(['a1', 'b1', 'a2', 'a3']);
        expect(await types({ fromPosition: before, limit: 2 })).toEqual(['a1', 'b1']);
      });

      it('reports the position of the last committed event as headPosition', async () => {
        const result = await store.appendToStream(newStream(), [event('A'), event('B')], 'no_stream');

        const head = await store.headPosition();

        expect(typeof head).toBe('bigint');
        expect(head).toBe(result.position);
      });

      it('reports the last position among categories when given', async () => {
        const a = newCategory();
        const inA = await store.appendToStream(newStream(a), [event('A')], 'no_stream');
        const later = await store.appendToStream(newStream(), [event('B')], 'no_stream');

        expect(await store.headPosition([a])).toBe(inA.position);
        expect(await store.headPosition()).toBe(later.position);
        expect(await store.headPosition([newCategory()])).toBe(0n);
      });

      it('counts the events after a position, of its categories, up to the limit (a lag in events)', async () => {
        const [a, b] = [newCategory(), newCategory()];
        const first = await store.appendToStream(newStream(a), [event('a1')], 'no_stream');
        await store.appendToStream(newStream(b), [event('b1')], 'no_stream');
        const last = await store.appendToStream(newStream(a), [event('a2'), event('a3')], 'no_stream');

        expect(await store.countAfter({ categories: [a], limit: 100 })).toBe(3);
        expect(await store.countAfter({ categories: [a], fromPosition: first.position, limit: 100 })).toBe(2);
        expect(await store.countAfter({ categories: [a, b], fromPosition: first.position, limit: 100 })).toBe(3);
        expect(await store.countAfter({ categories: [a], limit: 2 })).toBe(2);
        expect(await store.countAfter({ categories: [a], fromPosition: last.position, limit: 100 })).toBe(0);
        expect(await store.countAfter({ fromPosition: first.position, limit: 100 })).toBe(3);
      });
    });

    describe('subscribeToAll', () => {
      it('catches up, then delivers live events in order, only of its categories', async () => {
        const [a, b] = [newCategory(), newCategory()];
        const stream = newStream(a);
        await store.appendToStream(stream, [event('a0'), event('a1')], 'no_stream');
        await store.appendToStream(newStream(b), [event('b0')], 'no_stream');
        await store.appendToStream(newStream(a), [event('a2')], 'no_stream');

        const { received, subscription } = collect({ categories: [a] });
        await subscription.caughtUp();
        expect(received.map((e) => e.type)).toEqual(['a0', 'a1', 'a2']);

        await store.appendToStream(newStream(b), [event('b1')], 'no_stream');
        await store.appendToStream(stream, [event('a3')], 1);
        await store.appendToStream(newStream(a), [event('a4')], 'no_stream');
        await eventually(() => received.length >= 5, 'live events');
        await subscription.caughtUp();

        expect(received.map((e) => e.type)).toEqual(['a0', 'a1', 'a2', 'a3', 'a4']);
        expect(received.every((e) => categoryOf(e.streamId) === a)).toBe(true);
        expectStrictlyIncreasing(received.map((e) => e.position));
      });

      it('delivers only events strictly after fromPosition', async () => {
        const category = newCategory();
        const stream = newStream(category);
        const first = await store.appendToStream(stream, [event('A')], 'no_stream');
        await store.appendToStream(stream, [event('B'), event('C')], 0);

        const { received, subscription } = collect({ categories: [category], fromPosition: first.position });
        await subscription.caughtUp();

        expect(received.map((e) => e.type)).toEqual(['B', 'C']);
      });

      it('resolves caughtUp() only once every event committed before the call is handled', async () => {
        const category = newCategory();
        const stream = newStream(category);
        await store.appendToStream(stream, Array.from({ length: 10 }, (_, i) => event(`e${i}`)), 'no_stream');
        for (let i = 10; i < 20; i++) await store.appendToStream(stream, [event(`e${i}`)], i - 1);
        const handled: string[] = [];

        const subscription = subscribe({ categories: [category] }, async (e) => {
          await sleep(5); // slower than reading, so an early resolve would show
          handled.push(e.type);
        });
        await subscription.caughtUp();

        expect(handled).toEqual(Array.from({ length: 20 }, (_, i) => `e${i}`));
      });

      it('resolves caughtUp() for a category with no events while other categories have some', async () => {
        await store.appendToStream(newStream(), [event('elsewhere')], 'no_stream');
        const { received, subscription } = collect({ categories: [newCategory()] });

        await subscription.caughtUp();

        expect(received).toEqual([]);
      });

      it('stops at a throwing handler without skipping; resubscribing from the checkpoint redelivers', async () => {
        const category = newCategory();
        const stream = newStream(category);
        await store.appendToStream(stream, [event('e0'), event('e1'), event('e2')], 'no_stream');
        const attempted: string[] = [];
        const errors: unknown[] = [];
        let checkpoint = 0n;
        const boom = new Error('handler failed');

        const failing = subscribe(
          { categories: [category] },
          (e) => {
            attempted.push(e.type);
            if (e.type === 'e1') throw boom;
            checkpoint = e.position;
          },
          (err) => errors.push(err),
        );
        await eventually(() => errors.length > 0, 'onError');

        expect(errors).toEqual([boom]);
        await expect(failing.caughtUp()).rejects.toBe(boom);
        await store.appendToStream(stream, [event('e3')], 2);

        const { received, subscription } = collect({ categories: [category], fromPosition: checkpoint });
        await subscription.caughtUp();

        expect(received.map((e) => e.type)).toEqual(['e1', 'e2', 'e3']);
        expect(attempted).toEqual(['e0', 'e1']);
        expect(errors).toHaveLength(1);
      });

      it('delivers nothing after close()', async () => {
        const category = newCategory();
        const stream = newStream(category);
        await store.appendToStream(stream, [event('A')], 'no_stream');
        const closed = collect({ categories: [category] });
        await closed.subscription.caughtUp();

        await closed.subscription.close();
        await store.appendToStream(stream, [event('B')], 0);
        const control = collect({ categories: [category] });
        await control.subscription.caughtUp();

        expect(control.received.map((e) => e.type)).toEqual(['A', 'B']);
        expect(closed.received.map((e) => e.type)).toEqual(['A']);
      });
    });

    describe('concurrency', () => {
      it('lets exactly one of 50 concurrent appends at the same expected revision win', async () => {
        const stream = newStream();
        await store.appendToStream(stream, [event('prior')], 'no_stream');
        const ids = Array.from({ length: 50 }, () => randomUUID());

        const outcomes = await Promise.allSettled(
          ids.map((id) => store.appendToStream(stream, [{ id, type: 'racer', data: { id } }], 0)),
        );

        const won = outcomes.filter((o) => o.status === 'fulfilled');
        const lost = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []));
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(49);
        for (const err of lost) {
          expect(err).toBeInstanceOf(WrongExpectedVersion);
          expect(err).toMatchObject({ expected: 0, actual: 1 });
        }
        const read = await store.readStream(stream);
        expect(read.events.map((e) => e.revision)).toEqual([0, 1]);
        expect(new Set(read.events.map((e) => e.id)).size).toBe(2);
        expect(ids).toContain(read.events[1].id);
      });

      it("lets exactly one of 50 concurrent 'no_stream' appends create the stream", async () => {
        const stream = newStream();

        const outcomes = await Promise.allSettled(
          Array.from({ length: 50 }, () => store.appendToStream(stream, [event('racer')], 'no_stream')),
        );

        expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
        expect((await store.readStream(stream)).events).toHaveLength(1);
      });

      it('delivers every event of 16 concurrent writers exactly once, in increasing position order', async () => {
        const category = newCategory();
        const writers = 16;
        const perWriter = 13;
        const before = await store.headPosition();
        const filtered = collect({ categories: [category] });
        const unfiltered = collect({ fromPosition: before });

        await Promise.all(
          Array.from({ length: writers }, async (_, w) => {
            const stream = newStream(category);
            for (let i = 0; i < perWriter; i++) {
              await store.appendToStream(stream, [event(`w${w}-${i}`)], i === 0 ? 'no_stream' : i - 1);
            }
          }),
        );
        await Promise.all([filtered.subscription.caughtUp(), unfiltered.subscription.caughtUp()]);

        const total = writers * perWriter;
        const stored = (await store.readAll({ categories: [category] })).map((e) => e.id);
        expect(stored).toHaveLength(total);
        for (const received of [filtered.received, unfiltered.received.filter((e) => categoryOf(e.streamId) === category)]) {
          expect(received.map((e) => e.id)).toEqual(stored);
          expect(new Set(received.map((e) => e.id)).size).toBe(total);
          expectStrictlyIncreasing(received.map((e) => e.position));
        }
        // Each stream's events arrive in revision order.
        const revisions = new Map<string, number[]>();
        for (const e of filtered.received) revisions.set(e.streamId, [...(revisions.get(e.streamId) ?? []), e.revision]);
        expect([...revisions.values()]).toEqual(
          Array.from({ length: writers }, () => Array.from({ length: perWriter }, (_, i) => i)),
        );
      });
    });

    describe('spans', () => {
      let tracing: TracingHarness;
      beforeEach(() => { tracing = installTracing(); });
      afterEach(() => tracing.dispose());
      const inTrace = <T>(fn: () => Promise<T>) => trace.getTracer('contract').startActiveSpan('request', async (span) => {
        try {
          return { result: await fn(), spanId: span.spanContext().spanId };
        } finally {
          span.end();
        }
      });
      const named = (name: string) => tracing.exporter.getFinishedSpans().filter((s) => s.name === name);

      it('records an append and a read inside a trace as CLIENT spans of the request, with the stream', async () => {
        const stream = newStream();
        const appended = await inTrace(() => store.appendToStream(stream, [event('a'), event('b')], 'no_stream'));
        const read = await inTrace(() => store.readStream(stream));
        expect(read.result.events).toHaveLength(2);
        const [append] = named('eventstore append');
        expect(append.kind).toBe(SpanKind.CLIENT);
        expect(append.parentSpanContext?.spanId).toBe(appended.spanId);
        expect(['postgresql', 'eventstoredb']).toContain(append.attributes['db.system']);
        expect(append.attributes).toMatchObject({
          'db.operation': 'append', 'spawnpoint.stream_id': stream, 'spawnpoint.events': 2, 'spawnpoint.expected_revision': 'no_stream',
          'spawnpoint.revision': 1, 'spawnpoint.position': appended.result.position.toString(),
        });
        const [reading] = named('eventstore read');
        expect(reading.parentSpanContext?.spanId).toBe(read.spanId);
        expect(reading.attributes).toMatchObject({ 'db.operation': 'read', 'spawnpoint.stream_id': stream, 'spawnpoint.events': 2 });
      });

      it('notes a lost optimistic race on the span without calling it a failure', async () => {
        const stream = newStream();
        await store.appendToStream(stream, [event('a')], 'no_stream');
        await expect(inTrace(() => store.appendToStream(stream, [event('b')], 'no_stream'))).rejects.toBeInstanceOf(WrongExpectedVersion);
        const [append] = named('eventstore append');
        expect(append.attributes['spawnpoint.wrong_expected_version']).toBe(true);
        expect(append.status.code).toBe(SpanStatusCode.UNSET);
      });

      it('opens no span outside a trace (subscriptions and background work)', async () => {
        const stream = newStream();
        await store.appendToStream(stream, [event('a')], 'no_stream');
        await store.readStream(stream);
        await store.readAll({ categories: [categoryOf(stream)] });
        expect(tracing.exporter.getFinishedSpans()).toEqual([]);
      });
    });
  });
}
