// Projections continue the trace of the request that appended an event (its metadata's traceparent): a
// span per applied event, the batch's SQL under it, events applied in one transaction linked; events
// without a traceparent get none. Real PostgreSQL, the registered SDK (setupTracing) recording in memory.
import { SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-node';
import type { PostgresEventStore, RecordedEvent } from '@spawnpoint/eventstore';
import type { ReadModels } from '@spawnpoint/read-models';
import { createProjectionTestBed, ProjectionTestBed } from '../../../../test/support/projections';
import { setupTracing, shutdownTracing, traceMetadata } from '../nest/tracing';
import { Projection, ProjectionRunner } from './projection-runner';
import { inProjectionSpans } from './projection-spans';

const marks: Projection = {
  name: 'marks',
  categories: ['mark'],
  async applySql(events, sql) {
    for (const e of events) {
      await sql.query(`INSERT INTO checkpoints (name, position, updated_at) VALUES ($1, $2, now())
        ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position`, [`marks:${e.streamId}`, String(e.revision)]);
    }
  },
};

describe('projection spans', () => {
  const exporter = new InMemorySpanExporter();
  let bed: ProjectionTestBed;
  let store: PostgresEventStore;
  let models: ReadModels;

  beforeAll(async () => {
    setupTracing('projections-test', { exporter });
    bed = await createProjectionTestBed('projspans');
    ({ store, models } = bed);
  });
  afterAll(async () => {
    await bed?.close();
    await shutdownTracing();
  });
  beforeEach(() => exporter.reset());

  /** Appends in a request span of its own, the metadata carrying its traceparent (as execute.ts does). */
  const appendTraced = (stream: string) => trace.getTracer('test').startActiveSpan('request', async (span) => {
    const result = await store.appendToStream(stream, [{ type: 'Marked', data: {}, metadata: traceMetadata() }], 'no_stream');
    span.end();
    return { position: result.position, traceId: span.spanContext().traceId, spanId: span.spanContext().spanId };
  });
  const projectionSpans = () => exporter.getFinishedSpans().filter((s) => s.name === 'projection marks');

  it('applies a traced event in a span of its request\'s trace, with the batch\'s SQL under it', async () => {
    const runner = new ProjectionRunner(store, models, [marks]);
    await runner.start();
    try {
      const request = await appendTraced('mark-1');
      await runner.waitFor(request.position, 'mark-1');
      const [span] = projectionSpans();
      expect(span.kind).toBe(SpanKind.CONSUMER);
      expect(span.spanContext().traceId).toBe(request.traceId);
      expect(span.parentSpanContext?.spanId).toBe(request.spanId);
      expect(span.attributes).toMatchObject({ 'spawnpoint.projection': 'marks', 'spawnpoint.event.type': 'Marked', 'spawnpoint.stream_id': 'mark-1' });
      const sql = exporter.getFinishedSpans().filter((s) => s.attributes['db.system'] === 'postgresql' && s.parentSpanContext?.spanId === span.spanContext().spanId);
      expect(sql.map((s) => s.attributes['db.operation'])).toEqual(['BEGIN', 'INSERT', 'INSERT']);
      // The last is the checkpoint and the COMMIT, in one round trip.
      expect(String(sql[2].attributes['db.statement'])).toMatch(/^INSERT INTO checkpoints .*; COMMIT$/s);
    } finally {
      await runner.stop();
    }
  });

  it('opens none for an event appended outside a trace', async () => {
    const runner = new ProjectionRunner(store, models, [marks]);
    await runner.start();
    try {
      const { position } = await store.appendToStream('mark-2', [{ type: 'Marked', data: {}, metadata: traceMetadata() }], 'no_stream');
      await runner.waitFor(position, 'mark-2');
      expect(await models.checkpoint.findUnique({ where: { name: 'marks:mark-2' } })).not.toBeNull();
      expect(projectionSpans()).toEqual([]);
    } finally {
      await runner.stop();
    }
  });

  it('links the spans of events from several traces applied in one transaction, the batch\'s work under the first', async () => {
    const traced = (name: string) => trace.getTracer('test').startActiveSpan(name, (span) => {
      span.end();
      return { metadata: traceMetadata(), spanId: span.spanContext().spanId };
    });
    const [first, second] = [traced('first'), traced('second')];
    const event = (n: number, metadata: Record<string, unknown>): RecordedEvent =>
      ({ id: `e-${n}`, streamId: `pair-${n}`, revision: 0, position: BigInt(n), type: 'Paired', data: {}, metadata, createdAt: new Date() });
    const batch = [event(1, first.metadata), event(2, {}), event(3, second.metadata)];
    const activeIn = await inProjectionSpans('pairs', batch, async () => trace.getActiveSpan()?.spanContext().spanId);
    const spans = exporter.getFinishedSpans().filter((s) => s.name === 'projection pairs');
    expect(spans).toHaveLength(2);
    const [a, b] = [first, second].map((r) => spans.find((s) => s.parentSpanContext?.spanId === r.spanId)!);
    expect(activeIn).toBe(a.spanContext().spanId);
    expect(a.links).toEqual([]);
    expect(b.links.map((l) => l.context.spanId)).toEqual([a.spanContext().spanId]);
    expect(b.attributes).toMatchObject({ 'spawnpoint.batch.size': 3, 'spawnpoint.stream_id': 'pair-3' });
  });
});
