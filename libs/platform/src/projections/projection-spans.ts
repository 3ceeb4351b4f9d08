// A span per applied event, in the trace of the request that appended it: the event's metadata carries
// its traceparent (execute.ts), so a trace goes on from the HTTP request into the read model. A batch is
// one transaction: every traced event's span covers it, the batch's SQL runs under the first sampled one,
// and the others link to that one (applied together). Events without a traceparent (timers, runtime
// reports, tracing off) get no span; with tracing off this costs one check per batch.
import { context, Link, propagation, ROOT_CONTEXT, Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { RecordedEvent } from '@spawnpoint/eventstore';
import { tracingEnabled } from '../nest/tracing';

// Looked up per use: a cached tracer would keep pointing at a provider registered earlier.
const tracer = () => trace.getTracer('spawnpoint.projections');

export async function inProjectionSpans<T>(projection: string, batch: RecordedEvent[], fn: () => Promise<T>): Promise<T> {
  if (!tracingEnabled()) return fn();
  const traced = batch.filter((e) => typeof e.metadata.traceparent === 'string');
  if (traced.length === 0) return fn();
  const start = (event: RecordedEvent, links: Link[]): Span => tracer().startSpan(`projection ${projection}`, {
    kind: SpanKind.CONSUMER,
    links,
    attributes: {
      'spawnpoint.projection': projection, 'spawnpoint.event.type': event.type, 'spawnpoint.event.id': event.id,
      'spawnpoint.stream_id': event.streamId, 'spawnpoint.position': event.position.toString(), 'spawnpoint.batch.size': batch.length,
    },
  }, propagation.extract(ROOT_CONTEXT, { traceparent: event.metadata.traceparent as string }));
  const spans: Span[] = [];
  let lead: Span | undefined;
  for (const event of traced) {
    const span = start(event, lead ? [{ context: lead.spanContext(), attributes: { 'spawnpoint.link': 'same transaction' } }] : []);
    spans.push(span);
    if (!lead && span.isRecording()) lead = span;
  }
  try {
    return await (lead ? context.with(trace.setSpan(context.active(), lead), fn) : fn());
  } catch (err) {
    for (const span of spans) {
      span.recordException(err instanceof Error ? err : String(err));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    throw err;
  } finally {
    for (const span of spans) span.end();
  }
}
