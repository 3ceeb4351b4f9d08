// trace_id and span_id of the active OpenTelemetry span, on every line written inside one (a pino mixin).
// Without a registered SDK there is no active context (docs/adr/0002-tracing-cost.md): nothing is added.
import { context, isSpanContextValid, trace } from '@opentelemetry/api';

export function traceFields(): { trace_id?: string; span_id?: string } {
  const sc = trace.getSpanContext(context.active());
  // A new object each time: pino merges the line's own fields into it.
  return sc && isSpanContextValid(sc) ? { trace_id: sc.traceId, span_id: sc.spanId } : {};
}
