// The behaviour every Bus adapter must have. Run against NATS (two connections, to prove delivery
// across connections) and in memory (`other` is the same instance).
import { randomBytes, randomUUID } from 'node:crypto';
import { context, ROOT_CONTEXT, SpanKind, trace, TraceFlags } from '@opentelemetry/api';
import { BusUnavailable, RemoteError, type Bus, type IntegrationEvent } from '../bus';
import { captureLogs, type CapturedLogs } from '../../../logging/src/testing';
import { installTracing } from './tracing-harness';
import { sleep, waitFor } from './wait';

export interface BusUnderTest {
  bus: Bus;
  /** A second handle on the same bus (another connection); defaults to `bus`. */
  other?: Bus;
  cleanup(): Promise<void>;
}

export function describeBusContract(name: string, factory: () => Promise<BusUnderTest>): void {
  describe(`Bus contract: ${name}`, () => {
    let bus: Bus;
    let other: Bus;
    let cleanup: () => Promise<void>;
    let unique: string;

    beforeEach(async () => {
      const created = await factory();
      bus = created.bus;
      other = created.other ?? created.bus;
      cleanup = created.cleanup;
      unique = randomBytes(4).toString('hex');
    });

    let logs: CapturedLogs | null = null;
    afterEach(async () => {
      jest.restoreAllMocks();
      logs?.restore();
      logs = null;
      await cleanup();
    });

    const subject = (s: string) => `test.${unique}.${s}`;
    const durable = (s: string) => `${s}_${unique}`;
    const event = (streamId: string, type: string, data: unknown = {}): IntegrationEvent => ({
      id: randomUUID(),
      type,
      streamId,
      revision: 0,
      position: '1',
      data,
      metadata: { correlationId: 'c-1' },
    });
    // The bus's own log lines, kept from the test output and looked at (restored after each test).
    const silenceErrors = () => (logs = captureLogs());

    describe('request/reply', () => {
      it('round-trips payload, reply and headers', async () => {
        await other.handle(subject('echo'), (payload, ctx) => ({ payload, subject: ctx.subject, project: ctx.headers['x-project-id'] }));
        const reply = await bus.request(subject('echo'), { n: 1, list: ['a'] }, { headers: { 'x-project-id': 'p-1' } });
        expect(reply).toEqual({ payload: { n: 1, list: ['a'] }, subject: subject('echo'), project: 'p-1' });
        await expect(bus.ping()).resolves.toBeUndefined();
      });

      it('carries a 5 MiB request and reply, a 3 MiB broadcast and a 2 MiB event (NATS: over max_payload, ADR-0019)', async () => {
        const text = (n: number) => ''.padEnd(n, 'abcdefghij');
        await other.handle(subject('big'), (p: { text: string }) => ({ text: p.text + p.text.slice(0, 10) }));
        const reply = await bus.request<{ text: string }>(subject('big'), { text: text(5 * 1024 * 1024) });
        expect(reply.text.length).toBe(5 * 1024 * 1024 + 10);
        const heard: number[] = [];
        await other.listen(subject('big-news'), (p: { text: string }) => heard.push(p.text.length));
        await bus.broadcast(subject('big-news'), { text: text(3 * 1024 * 1024) });
        const events: IntegrationEvent[] = [];
        await other.consume({ durable: durable('big'), filters: ['bigcat.*'] }, (e) => {
          events.push(e);
        });
        const e = event('bigcat-1', 'Large', { text: text(2 * 1024 * 1024) });
        await bus.publish(e);
        await waitFor(() => heard.length === 1 && events.length === 1, 10_000, 'the broadcast and the event');
        expect(heard).toEqual([3 * 1024 * 1024]);
        expect(events[0]).toEqual(e);
      });

      it('passes a RemoteError through with its status and detail', async () => {
        const body = { error: 'Server not found', status: 404, detail: { serverId: 's-1' } };
        await other.handle(subject('missing'), () => {
          throw new RemoteError(body);
        });
        const err = await bus.request(subject('missing'), {}).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(RemoteError);
        expect((err as RemoteError).body).toEqual(body);
      });

      it('turns any other error into a 500 and logs the real one', async () => {
        const logged = silenceErrors();
        await other.handle(subject('broken'), async () => {
          throw new Error('database on fire');
        });
        const err = await bus.request(subject('broken'), {}).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(RemoteError);
        expect((err as RemoteError).body).toEqual({ error: 'Internal error', status: 500 });
        expect(logged.records()).toContainEqual(expect.objectContaining({ level: 'error', msg: `bus: handler for ${subject('broken')} failed`, err: expect.objectContaining({ message: 'database on fire' }) }));
      });

      it('fails fast with BusUnavailable when nobody handles the subject', async () => {
        const started = Date.now();
        await expect(bus.request(subject('nobody'), {}, { timeoutMs: 5000 })).rejects.toBeInstanceOf(BusUnavailable);
        expect(Date.now() - started).toBeLessThan(1000);
      });

      it('fails with BusUnavailable when the handler does not answer in time', async () => {
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));
        await other.handle(subject('slow'), () => released);
        await expect(bus.request(subject('slow'), {}, { timeoutMs: 100 })).rejects.toBeInstanceOf(BusUnavailable);
        release();
      });

      it('stops serving after unsubscribe', async () => {
        const unsubscribe = await other.handle(subject('gone'), () => 'here');
        await expect(bus.request(subject('gone'), {})).resolves.toBe('here');
        await unsubscribe();
        await expect(bus.request(subject('gone'), {})).rejects.toBeInstanceOf(BusUnavailable);
      });

      it('shares requests between handlers of one subject, each request served once', async () => {
        const served = { a: [] as number[], b: [] as number[] };
        await bus.handle(subject('shared'), (n: number) => served.a.push(n));
        await other.handle(subject('shared'), (n: number) => served.b.push(n));
        const requests = Array.from({ length: 30 }, (_, i) => i);
        await Promise.all(requests.map((n) => bus.request(subject('shared'), n)));
        expect(served.a.length).toBeGreaterThan(0);
        expect(served.b.length).toBeGreaterThan(0);
        expect([...served.a, ...served.b].sort((x, y) => x - y)).toEqual(requests);
      });
    });

    describe('integration events', () => {
      it('delivers published events to durable consumers whose filters match', async () => {
        const received: IntegrationEvent[] = [];
        const alsoReceived: string[] = [];
        await other.consume({ durable: durable('servers'), filters: ['server.*', 'build.BuildReady'] }, (e) => {
          received.push(e);
        });
        // A second durable gets its own copy of every matching event.
        await other.consume({ durable: durable('audit'), filters: ['>'] }, (e) => {
          alsoReceived.push(e.type);
        });
        const events = [
          event('server-1', 'ServerStarted', { port: 7777 }),
          event('build-1', 'BuildQueued'),
          event('build-1', 'BuildReady', { image: 'x' }),
          event('project-1', 'ProjectCreated'),
          event('server-1', 'ServerStopped'),
        ];
        for (const e of events) await bus.publish(e);
        await waitFor(() => received.length >= 3 && alsoReceived.length >= 5, 5000, 'deliveries');
        expect(received).toEqual([events[0], events[2], events[4]]);
        expect(alsoReceived).toEqual(events.map((e) => e.type));
      });

      it('a durable consumer that joins after events of its topic were published gets the next ones', async () => {
        const early: string[] = [];
        const late: string[] = [];
        const stopEarly = await other.consume({ durable: durable('early'), filters: ['widget.*'] }, (e) => {
          early.push(e.type);
        });
        await bus.publish(event('widget-1', 'WidgetMade'));
        await waitFor(() => early.length >= 1, 5000, 'early delivery');
        await stopEarly();
        await other.consume({ durable: durable('late'), filters: ['widget.WidgetSold'] }, (e) => {
          late.push(e.type);
        });
        await bus.publish(event('widget-1', 'WidgetSold'));
        await waitFor(() => late.length >= 1, 5000, 'late delivery');
        expect(late).toEqual(['WidgetSold']);
        expect(early).toEqual(['WidgetMade']);
      });

      it('delivers an event id once, however often it is published', async () => {
        const received: string[] = [];
        await other.consume({ durable: durable('dedupe'), filters: ['server.*'] }, (e) => {
          received.push(e.id);
        });
        const first = event('server-1', 'ServerStarted');
        await bus.publish(first);
        await bus.publish({ ...first, data: { again: true } });
        // Events arrive in order, so once this one is in, a duplicate would have been too.
        const sentinel = event('server-2', 'ServerStarted');
        await bus.publish(sentinel);
        await waitFor(() => received.includes(sentinel.id), 5000, 'sentinel');
        expect(received).toEqual([first.id, sentinel.id]);
      });

      it('redelivers an event whose handler failed', async () => {
        silenceErrors();
        const attempts: string[] = [];
        await other.consume({ durable: durable('flaky'), filters: ['server.*'] }, (e) => {
          attempts.push(e.id);
          if (attempts.length === 1) throw new Error('not yet');
        });
        const e = event('server-1', 'ServerStarted');
        // NATS redelivers by itself; in-process publish rejects and the publisher (the relay) retries.
        await bus.publish(e).catch(() => bus.publish(e));
        await waitFor(() => attempts.length >= 2, 10_000, 'redelivery');
        expect(attempts).toEqual([e.id, e.id]);
      });

      /** Publishes like the relay: a rejected publish (in-process: a consumer failed) is retried until accepted. */
      const publishLikeRelay = async (e: IntegrationEvent) => {
        for (let i = 0; ; i++) {
          try {
            return await bus.publish(e);
          } catch (err) {
            if (i >= 30) throw err;
            await sleep(20);
          }
        }
      };

      it('parks an event its handler keeps failing on after maxAttempts; the events behind it are delivered', async () => {
        const logged = silenceErrors();
        const attempts: string[] = [];
        const handled: string[] = [];
        const poison = event('server-1', 'ServerStarted', { poison: true });
        await other.consume({ durable: durable('poison'), filters: ['server.*'], maxAttempts: 3 }, (e) => {
          attempts.push(e.id);
          if ((e.data as { poison?: boolean }).poison) throw new Error('cannot handle this one');
          handled.push(e.id);
        });
        const next = event('server-2', 'ServerStarted');
        await publishLikeRelay(poison);
        await publishLikeRelay(next);
        const poisonAttempts = () => attempts.filter((id) => id === poison.id).length;
        await waitFor(() => handled.includes(next.id) && poisonAttempts() >= 3, 15_000, 'the event behind the poison, and 3 attempts');
        await sleep(2_500); // NATS would have redelivered within this (its next delay is 2 s)
        expect(poisonAttempts()).toBe(3);
        expect(logged.messages('error').some((m) => /PARKED event/.test(m) && m.includes(poison.id))).toBe(true);
      });

      it('never parks an event over an infrastructure failure: it is redelivered until handled', async () => {
        silenceErrors();
        const attempts: string[] = [];
        await other.consume({ durable: durable('outage'), filters: ['server.*'], maxAttempts: 2 }, (e) => {
          attempts.push(e.id);
          if (attempts.length <= 3) throw new BusUnavailable('servers.get', 'timeout');
        });
        const e = event('server-1', 'ServerStarted');
        await publishLikeRelay(e);
        await waitFor(() => attempts.length >= 4, 15_000, 'delivery after the outage');
        expect(attempts).toEqual([e.id, e.id, e.id, e.id]);
      });

      it('carries headers to the consumer', async () => {
        const headers: Record<string, string>[] = [];
        await other.consume({ durable: durable('headers'), filters: ['server.*'] }, (_e, ctx) => {
          headers.push(ctx.headers);
        });
        await bus.publish(event('server-1', 'ServerStarted'), { 'x-project-id': 'p-1' });
        await waitFor(() => headers.length === 1, 5000, 'delivery');
        expect(headers[0]).toEqual({ 'x-project-id': 'p-1' });
      });
    });

    describe('broadcast', () => {
      it('reaches every listener of the subject, and only those', async () => {
        const got: Array<[string, unknown]> = [];
        await bus.listen(subject('lobby.1'), (p) => got.push(['bus', p]));
        await other.listen(subject('lobby.*'), (p) => got.push(['other', p]));
        await other.listen(subject('lobby.2'), (p) => got.push(['wrong', p]));
        await other.broadcast(subject('lobby.1'), { players: 3 });
        await waitFor(() => got.length >= 2, 5000, 'broadcast');
        await sleep(50);
        expect(got.sort()).toEqual([
          ['bus', { players: 3 }],
          ['other', { players: 3 }],
        ]);
      });
      it('a listener added or removed after a broadcast is heard from the next one on', async () => {
        const got: string[] = [];
        const first = await bus.listen(subject('room.1'), () => got.push('first'));
        await other.broadcast(subject('room.1'), {});
        await waitFor(() => got.length >= 1, 5000, 'first broadcast');
        await first();
        await other.listen(subject('room.*'), () => got.push('second'));
        await sleep(100); // a NATS subscription is registered with the server asynchronously
        await other.broadcast(subject('room.1'), {});
        await waitFor(() => got.length >= 2, 5000, 'second broadcast');
        await sleep(50);
        expect(got).toEqual(['first', 'second']);
      });
    });

    describe('trace propagation', () => {
      let tracing: ReturnType<typeof installTracing>;
      beforeEach(() => {
        tracing = installTracing();
      });
      afterEach(() => tracing.dispose());

      const tracer = () => trace.getTracer('bus-contract');
      const activeTraceId = () => trace.getActiveSpan()?.spanContext().traceId;

      it('continues the caller trace in the request handler', async () => {
        let handlerTraceId: string | undefined;
        await other.handle(subject('traced'), () => {
          handlerTraceId = activeTraceId();
          return 'ok';
        });
        const callerTraceId = await tracer().startActiveSpan('caller', async (span) => {
          await bus.request(subject('traced'), {});
          span.end();
          return span.spanContext().traceId;
        });
        expect(handlerTraceId).toBe(callerTraceId);
        const server = tracing.exporter.getFinishedSpans().find((s) => s.name === `bus ${subject('traced')}`);
        expect(server?.kind).toBe(SpanKind.SERVER);
        expect(server?.spanContext().traceId).toBe(callerTraceId);
      });

      it('continues the publisher trace in the consumer', async () => {
        const consumerTraceIds: Array<string | undefined> = [];
        await other.consume({ durable: durable('traced'), filters: ['server.*'] }, () => {
          consumerTraceIds.push(activeTraceId());
        });
        const publisherTraceId = await tracer().startActiveSpan('publisher', async (span) => {
          await bus.publish(event('server-1', 'ServerStarted'));
          span.end();
          return span.spanContext().traceId;
        });
        await waitFor(() => consumerTraceIds.length === 1, 5000, 'delivery');
        expect(consumerTraceIds[0]).toBe(publisherTraceId);
        await waitFor(() => tracing.exporter.getFinishedSpans().some((s) => s.kind === SpanKind.CONSUMER), 5000, 'consumer span');
      });

      const spans = () => tracing.exporter.getFinishedSpans();
      const parentOf = (span: { parentSpanContext?: { spanId: string } }) => span.parentSpanContext?.spanId;

      it('opens a CLIENT span at the caller, parent of the handler\'s SERVER span', async () => {
        await other.handle(subject('rpc'), () => 'ok');
        const callerSpanId = await tracer().startActiveSpan('caller', async (span) => {
          await bus.request(subject('rpc'), {});
          span.end();
          return span.spanContext().spanId;
        });
        await waitFor(() => spans().filter((s) => s.name === `bus ${subject('rpc')}`).length === 2, 5000, 'client and server spans');
        const client = spans().find((s) => s.name === `bus ${subject('rpc')}` && s.kind === SpanKind.CLIENT)!;
        const server = spans().find((s) => s.name === `bus ${subject('rpc')}` && s.kind === SpanKind.SERVER)!;
        expect(parentOf(client)).toBe(callerSpanId);
        expect(parentOf(server)).toBe(client.spanContext().spanId);
      });

      it('opens no span under a caller that did not sample its trace; the handler runs in that trace', async () => {
        let handlerTraceId: string | undefined;
        await other.handle(subject('unsampled'), () => {
          handlerTraceId = activeTraceId();
          return 'ok';
        });
        const caller = trace.setSpanContext(ROOT_CONTEXT, { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.NONE, isRemote: true });
        await context.with(caller, () => bus.request(subject('unsampled'), {}));
        expect(handlerTraceId).toBe('0af7651916cd43dd8448eb211c80319c');
        expect(spans()).toEqual([]);
      });

      it('opens no CLIENT span outside a trace', async () => {
        await other.handle(subject('untraced'), () => 'ok');
        await bus.request(subject('untraced'), {});
        expect(spans().filter((s) => s.kind === SpanKind.CLIENT)).toEqual([]);
      });

      it('publishes in a PRODUCER span; each durable consumes in a CONSUMER span, its child, linked to it (fan-out)', async () => {
        const seen: Array<{ durable: string; spanId?: string }> = [];
        for (const name of ['first', 'second']) {
          await other.consume({ durable: durable(name), filters: ['server.*'] }, () => {
            seen.push({ durable: name, spanId: trace.getActiveSpan()?.spanContext().spanId });
          });
        }
        const published = event('server-2', 'ServerStarted');
        const publisherSpanId = await tracer().startActiveSpan('publisher', async (span) => {
          await bus.publish(published);
          span.end();
          return span.spanContext().spanId;
        });
        await waitFor(() => seen.length === 2 && spans().filter((s) => s.kind === SpanKind.CONSUMER).length === 2, 5000, 'both deliveries');
        const producer = spans().find((s) => s.kind === SpanKind.PRODUCER)!;
        expect(producer.name).toMatch(/^publish .*server\.ServerStarted$/);
        expect(parentOf(producer)).toBe(publisherSpanId);
        expect(producer.attributes['messaging.message.id']).toBe(published.id);
        const consumers = spans().filter((s) => s.kind === SpanKind.CONSUMER);
        for (const consumer of consumers) {
          expect(consumer.name).toBe(`process ${producer.name.slice('publish '.length)}`);
          expect(parentOf(consumer)).toBe(producer.spanContext().spanId);
          expect(consumer.links.map((l) => l.context.spanId)).toEqual([producer.spanContext().spanId]);
          expect(consumer.attributes['messaging.message.id']).toBe(published.id);
        }
        expect(consumers.map((c) => c.attributes['messaging.consumer.group.name']).sort()).toEqual([durable('first'), durable('second')]);
        // The handler runs inside its delivery's span.
        expect(seen.map((s) => s.spanId).sort()).toEqual(consumers.map((c) => c.spanContext().spanId).sort());
      });

      it('publishes under the traceparent it is given (the relay passes the event\'s)', async () => {
        const consumed: Array<string | undefined> = [];
        await other.consume({ durable: durable('relayed'), filters: ['server.*'] }, (_e, ctx) => {
          consumed.push(ctx.headers.traceparent);
        });
        await bus.publish(event('server-3', 'ServerStarted'), { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
        await waitFor(() => consumed.length === 1, 5000, 'delivery');
        const producer = spans().find((s) => s.kind === SpanKind.PRODUCER)!;
        expect(producer.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
        expect(parentOf(producer)).toBe('b7ad6b7169203331');
        expect(consumed[0]).toBe(`00-0af7651916cd43dd8448eb211c80319c-${producer.spanContext().spanId}-01`);
      });

      it('carries the sender\'s trace across a broadcast to every listener', async () => {
        const heard: Array<string | undefined> = [];
        await bus.listen(subject('news'), () => { heard.push(trace.getActiveSpan()?.spanContext().traceId); });
        await other.listen(subject('news'), () => { heard.push(trace.getActiveSpan()?.spanContext().traceId); });
        await sleep(100); // a NATS subscription is registered with the server asynchronously
        const senderTraceId = await tracer().startActiveSpan('sender', async (span) => {
          await other.broadcast(subject('news'), { n: 1 });
          span.end();
          return span.spanContext().traceId;
        });
        await waitFor(() => heard.length === 2 && spans().filter((s) => s.kind === SpanKind.CONSUMER).length === 2, 5000, 'both listeners');
        expect(heard).toEqual([senderTraceId, senderTraceId]);
        const producer = spans().find((s) => s.kind === SpanKind.PRODUCER)!;
        expect(producer.name).toBe(`publish ${subject('news')}`);
        for (const consumer of spans().filter((s) => s.kind === SpanKind.CONSUMER)) {
          expect(parentOf(consumer)).toBe(producer.spanContext().spanId);
          expect(consumer.links.map((l) => l.context.spanId)).toEqual([producer.spanContext().spanId]);
        }
      });

      it('opens no span for a broadcast sent outside a trace', async () => {
        let heard = 0;
        await bus.listen(subject('quiet'), () => { heard++; });
        await sleep(100);
        await other.broadcast(subject('quiet'), {});
        await waitFor(() => heard === 1, 5000, 'delivery');
        await sleep(50);
        expect(spans()).toEqual([]);
      });
    });
  });
}
