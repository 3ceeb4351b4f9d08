// The EventStoreDB adapter's spans through the real client's request path (no server runs here: its
// contract suite, spans included, runs when EVENTSTORE_URL is set). An unreachable server fails fast, and
// the failure is on the span.
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { installTracing, type TracingHarness } from '../../../messaging/src/testing/tracing-harness';
import { EventStoreDbEventStore } from './eventstoredb-event-store';

describe('EventStoreDbEventStore spans', () => {
  let tracing: TracingHarness;
  let store: EventStoreDbEventStore;
  beforeEach(() => {
    tracing = installTracing();
    store = new EventStoreDbEventStore({ connectionString: 'esdb://127.0.0.1:1?tls=false&maxDiscoverAttempts=1' });
  });
  afterEach(async () => {
    await store.close();
    await tracing.dispose();
  });

  it('records a failed append and read as failed CLIENT spans of the request, naming the stream', async () => {
    const requestSpanId = await trace.getTracer('test').startActiveSpan('request', async (span) => {
      await expect(store.appendToStream('lobby-1', [{ type: 'LobbyCreated', data: {} }], 'no_stream')).rejects.toThrow(/UNAVAILABLE/);
      await expect(store.readStream('lobby-1')).rejects.toThrow(/UNAVAILABLE/);
      span.end();
      return span.spanContext().spanId;
    });
    const spans = tracing.exporter.getFinishedSpans().filter((s) => s.name.startsWith('eventstore '));
    expect(spans.map((s) => s.name)).toEqual(['eventstore append', 'eventstore read']);
    for (const span of spans) {
      expect(span.parentSpanContext?.spanId).toBe(requestSpanId);
      expect(span.attributes).toMatchObject({ 'db.system': 'eventstoredb', 'spawnpoint.stream_id': 'lobby-1' });
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
      expect(span.events.map((e) => e.name)).toEqual(['exception']);
    }
  });
});
