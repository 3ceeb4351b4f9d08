// One server span per HTTP request: it continues the caller's traceparent, is returned in the
// response's traceparent header, and is the active context for the whole Nest pipeline, so bus
// requests (and through them the events appended) carry the same trace.
import { Context, context, propagation, Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

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
  const sc = span.spanContext();
  req[SPAN] = { span, ctx: trace.setSpan(parent, span) };
  setHeader('traceparent', `00-${sc.traceId}-${sc.spanId}-${sc.traceFlags.toString(16).padStart(2, '0')}`);
  context.with(req[SPAN].ctx, done);
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
