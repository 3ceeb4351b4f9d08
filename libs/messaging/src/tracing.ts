// W3C trace context across the bus: injected into headers by senders, extracted around handlers.
// Without a registered OpenTelemetry SDK every call here is a no-op.
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Headers } from './bus';

// Looked up per use: a cached tracer would keep pointing at a provider registered earlier.
const tracer = () => trace.getTracer('spawnpoint.messaging');

/** Headers plus the active trace context; explicit headers win (the relay passes the event's original traceparent). */
export function withTraceContext(headers: Headers = {}): Headers {
  const carrier: Headers = {};
  propagation.inject(context.active(), carrier);
  return { ...carrier, ...headers };
}

/** Runs `fn` in a span whose parent is the trace context carried by `headers`. */
export function inSpan<T>(name: string, kind: SpanKind, headers: Headers, fn: () => Promise<T>): Promise<T> {
  const parent = propagation.extract(ROOT_CONTEXT, headers);
  return context.with(parent, () =>
    tracer().startActiveSpan(name, { kind }, async (span) => {
      try {
        return await fn();
      } catch (err) {
        markFailed(err);
        throw err;
      } finally {
        span.end();
      }
    }),
  );
}

/** Marks the active span as failed (unexpected errors only; a RemoteError is an answer, not a failure). */
export function markFailed(err: unknown): void {
  const span = trace.getActiveSpan();
  if (!span) return;
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: SpanStatusCode.ERROR });
}
