// One server span per HTTP request: it continues the caller's traceparent, is returned in the
// response's traceparent header, and is the active context for the whole Nest pipeline, so bus
// requests (and through them the events appended) carry the same trace.
import { Context, context, isSpanContextValid, propagation, Span, SpanContext, SpanKind, SpanStatusCode, trace, TraceFlags } from '@opentelemetry/api';
import { randomBytes } from 'node:crypto';

const tracer = trace.getTracer('spawnpoint.gateway');
const SPAN = Symbol('otel');

interface TracedRequest {
  method: string;
  url: string;
  id: unknown;
  headers: Record<string, string | string[] | undefined>;
  routeOptions?: { url?: string };
  [SPAN]?: { span: Span; ctx: Context };
}

/** onRequest: open the span, answer with its traceparent, run the rest of the hooks inside it. */
export function startRequestSpan(req: TracedRequest, setHeader: (name: string, value: string) => void, done: () => void): void {
  const parent = propagation.extract(context.active(), req.headers);
  const span = tracer.startSpan(`HTTP ${req.method}`, {
    kind: SpanKind.SERVER,
    attributes: { 'http.request.method': req.method, 'url.path': req.url.split('?')[0], 'spawnpoint.request_id': String(req.id) },
  }, parent);
  // The SDK's span, recorded or sampled out: the bus and every log line of the request carry its trace, so
  // the answer must too. Without an SDK the API hands back the caller's span (or none): a span id of our own.
  const own = span.spanContext();
  const caller = trace.getSpanContext(parent);
  const sc = isSpanContextValid(own) && own.spanId !== caller?.spanId ? own : ownSpanContext(caller);
  req[SPAN] = { span, ctx: trace.setSpan(parent, span) };
  setHeader('traceparent', `00-${sc.traceId}-${sc.spanId}-${sc.traceFlags.toString(16).padStart(2, '0')}`);
  context.with(req[SPAN].ctx, done);
}

// Ids come from a pooled random buffer: a crypto call per request was a visible share of a GET.
let pool = Buffer.alloc(0);
let offset = 0;
function randomHex(bytes: number): string {
  if (offset + bytes > pool.length) {
    pool = randomBytes(4096);
    offset = 0;
  }
  offset += bytes;
  return pool.toString('hex', offset - bytes, offset);
}

/** Without a tracing SDK the request still gets its own span id, in the caller's trace or a new one. */
function ownSpanContext(caller: SpanContext | undefined): SpanContext {
  const valid = caller && isSpanContextValid(caller);
  return {
    traceId: valid ? caller.traceId : randomHex(16),
    spanId: randomHex(8),
    traceFlags: valid ? caller.traceFlags : TraceFlags.NONE,
  };
}

/** preHandler: body parsing ran on socket callbacks outside our context; re-enter it for the handler. */
export function enterRequestContext(req: TracedRequest, done: () => void): void {
  const traced = req[SPAN];
  if (traced) context.with(traced.ctx, done);
  else done();
}

/** onResponse: name the span after the route and close it. */
export function endRequestSpan(req: TracedRequest, statusCode: number): void {
  const span = req[SPAN]?.span;
  if (!span) return;
  span.updateName(`HTTP ${req.method} ${req.routeOptions?.url ?? ''}`.trim());
  span.setAttribute('http.response.status_code', statusCode);
  if (statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}
