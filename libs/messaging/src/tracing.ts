// W3C trace context across the bus: injected into headers by senders, extracted around handlers.
// Spans (OpenTelemetry messaging conventions): a request is a CLIENT span at the caller and a SERVER span
// at the handler; an integration event or a broadcast is a PRODUCER span where it is sent and a CONSUMER
// span per delivery, the child of the producer and linked to it (one message, many consumers: each
// consumer's span is its own, all in the producer's trace). Without a registered OpenTelemetry SDK every
// call here is a no-op, and the spans a sender opens need a sampled span to be open already.
import { Attributes, Context, context, isSpanContextValid, Link, propagation, ROOT_CONTEXT, Span, SpanKind, SpanStatusCode, trace, TraceFlags } from '@opentelemetry/api';
import { RemoteError, type Headers, type IntegrationEvent } from './bus';

// Looked up per use: a cached tracer would keep pointing at a provider registered earlier.
const tracer = () => trace.getTracer('spawnpoint.messaging');

/** Headers plus the active trace context; explicit headers win (the relay passes the event's original traceparent). */
export function withTraceContext(headers: Headers = {}): Headers {
  const carrier: Headers = {};
  propagation.inject(context.active(), carrier);
  return { ...carrier, ...headers };
}

/**
 * Runs `fn` in a span whose parent is `parent`: by default the trace context carried by `headers` (in
 * process, the caller's own context). A parent its caller did not sample gets no child span, `fn` runs in
 * the parent's context: under the parent-based samplers in use no child of it could be recorded, and not
 * opening one saves most of what tracing costs an unsampled request.
 */
export function inSpan<T>(name: string, kind: SpanKind, headers: Headers, fn: () => Promise<T>, attributes?: Attributes, parent: Context = propagation.extract(ROOT_CONTEXT, headers)): Promise<T> {
  const caller = trace.getSpanContext(parent);
  if (caller && isSpanContextValid(caller) && !isSampled(parent)) return context.with(parent, fn);
  return context.with(parent, () => tracer().startActiveSpan(name, { kind, attributes }, (span) => ended(span, fn)));
}

const messaging = (subject: string, operation: 'send' | 'process', extra?: Attributes): Attributes => ({
  'messaging.system': 'nats', 'messaging.destination.name': subject, 'messaging.operation.type': operation, ...extra,
});

/** A request's CLIENT span, when a sampled span is open; `fn` builds its headers inside it, so they carry it. */
export function requestSpan<T>(subject: string, fn: () => Promise<T>): Promise<T> {
  if (!trace.getActiveSpan()?.isRecording()) return fn();
  return tracer().startActiveSpan(`bus ${subject}`, { kind: SpanKind.CLIENT, attributes: { 'rpc.system': 'nats', 'rpc.method': subject } }, (span) => ended(span, fn));
}

/**
 * A PRODUCER span for a message sent with `headers`: its parent is the traceparent they carry (the relay
 * passes the event's) or else the active span, and it is opened only when that parent is sampled. `fn`
 * gets the headers to send: they carry the producer span (or, without one, the parent as before).
 */
export function publishSpan<T>(subject: string, headers: Headers, fn: (headers: Headers) => Promise<T>, extra?: () => Attributes): Promise<T> {
  const parent = headers.traceparent ? propagation.extract(context.active(), headers) : context.active();
  if (!isSampled(parent)) return fn(withTraceContext(headers));
  return context.with(parent, () => tracer().startActiveSpan(`publish ${subject}`, { kind: SpanKind.PRODUCER, attributes: messaging(subject, 'send', extra?.()) },
    (span) => ended(span, () => fn({ ...headers, ...carried() }))));
}

/**
 * One delivery's CONSUMER span: the child of the producer context carried by `headers`, linked to it.
 * `carriedOnly`: no span for a message that carries no sampled context (frequent broadcasts must not
 * each start a trace of their own).
 */
export function processSpan<T>(subject: string, headers: Headers, fn: () => Promise<T>, options: { extra?: () => Attributes; carriedOnly?: boolean } = {}): Promise<T> {
  const parent = propagation.extract(ROOT_CONTEXT, headers);
  const producer = trace.getSpanContext(parent);
  if (options.carriedOnly && !isSampled(parent)) return fn();
  const links: Link[] = producer ? [{ context: producer }] : [];
  return context.with(parent, () => tracer().startActiveSpan(`process ${subject}`, { kind: SpanKind.CONSUMER, links, attributes: messaging(subject, 'process', options.extra?.()) },
    (span) => ended(span, fn)));
}

/** A durable delivery in its consumer span's attributes (ids are fine in spans, never in metric labels). */
export function consumerAttributes(durable: string, event: IntegrationEvent, delivery: number): Attributes {
  return {
    'messaging.consumer.group.name': durable, 'messaging.message.id': event.id, 'messaging.message.delivery_count': delivery,
    'spawnpoint.stream_id': event.streamId, 'spawnpoint.event.type': event.type,
  };
}

/** Marks the active span as failed (unexpected errors only; a RemoteError is an answer, not a failure). */
export function markFailed(err: unknown): void {
  const span = trace.getActiveSpan();
  if (span) failed(span, err);
}

function failed(span: Span, err: unknown): void {
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/**
 * Awaits `fn` and ends the span; a failure marks it, except a RemoteError below 500 (an answer). A span
 * that records nothing (tracing off, or not sampled) is ended at once and `fn` runs bare: no wrapper's
 * promises for every message of an untraced request.
 */
function ended<T>(span: Span, fn: () => Promise<T>): Promise<T> {
  if (!span.isRecording()) {
    span.end();
    try {
      return fn();
    } catch (err) {
      return Promise.reject(err); // as the async path would: a rejection, never a throw
    }
  }
  return endedAfter(span, fn);
}

async function endedAfter<T>(span: Span, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof RemoteError) span.setAttribute('spawnpoint.error.status', err.body.status);
    if (!(err instanceof RemoteError) || err.body.status >= 500) failed(span, err);
    throw err;
  } finally {
    span.end();
  }
}

function carried(): Headers {
  const carrier: Headers = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

function isSampled(ctx: Context): boolean {
  const sc = trace.getSpanContext(ctx);
  return sc !== undefined && (sc.traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED;
}
