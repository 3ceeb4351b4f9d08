// One server span per HTTP request: it continues the caller's traceparent, is returned in the
// response's traceparent header, and is the active context for the whole Nest pipeline, so bus
// requests (and through them the events appended) carry the same trace.
import { Context, context, propagation, Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const tracer = trace.getTracer('spawnpoint.gateway');
type Traced = FastifyRequest & { otel?: { span: Span; ctx: Context } };

// Typed loosely on the server generics: Nest's adapter instance carries its own raw-request type.
export function registerTracingHooks(fastify: FastifyInstance<any, any, any, any>): void {
  fastify.addHook('onRequest', (req: Traced, reply: FastifyReply, done: () => void) => {
    const parent = propagation.extract(context.active(), req.headers);
    const span = tracer.startSpan(`HTTP ${req.method}`, {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': req.method, 'url.path': req.url.split('?')[0], 'spawnpoint.request_id': String(req.id) },
    }, parent);
    const sc = span.spanContext();
    req.otel = { span, ctx: trace.setSpan(parent, span) };
    void reply.header('traceparent', `00-${sc.traceId}-${sc.spanId}-${sc.traceFlags.toString(16).padStart(2, '0')}`);
    context.with(req.otel.ctx, done);
  });
  // Body parsing runs on socket callbacks outside our context: re-enter it for the handler.
  fastify.addHook('preHandler', (req: Traced, _reply: FastifyReply, done: () => void) => {
    if (req.otel) context.with(req.otel.ctx, done);
    else done();
  });
  fastify.addHook('onResponse', (req: Traced, reply: FastifyReply, done: () => void) => {
    const span = req.otel?.span;
    if (span) {
      span.updateName(`HTTP ${req.method} ${req.routeOptions?.url ?? ''}`.trim());
      span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
    done();
  });
}
