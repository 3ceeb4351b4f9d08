// OpenTelemetry for every process. With an exporter (OTEL_EXPORTER_OTLP_ENDPOINT, or one given in
// tests) the SDK is registered with async-local context, so one trace follows a request through the
// gateway, the bus, the services and into event metadata. Without one, only the W3C propagator is set:
// on Node 20 async-local context costs every await a promise hook (about half the gateway's
// throughput), which buys nothing when no span is exported. The gateway still answers with a
// traceparent either way (docs/adr/0002-tracing-cost.md).
import { context, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, SimpleSpanProcessor, SpanExporter } from '@opentelemetry/sdk-trace-node';

let provider: NodeTracerProvider | null = null;

export function setupTracing(serviceName: string, options: { exporter?: SpanExporter } = {}): NodeTracerProvider | null {
  if (provider) return provider;
  const spanProcessors = [];
  if (options.exporter) spanProcessors.push(new SimpleSpanProcessor(options.exporter));
  else if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) spanProcessors.push(new BatchSpanProcessor(new OTLPTraceExporter()));
  if (spanProcessors.length === 0) {
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    return null;
  }
  provider = new NodeTracerProvider({ resource: resourceFromAttributes({ 'service.name': `spawnpoint-${serviceName}` }), spanProcessors });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  return provider;
}

export async function shutdownTracing(): Promise<void> {
  await provider?.shutdown().catch(() => undefined);
  provider = null;
  trace.disable();
  context.disable();
  propagation.disable();
}

/** The active trace context as event metadata (traceparent), so a trace reaches the store. */
export function traceMetadata(): { traceparent?: string; correlationId?: string } {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  const span = trace.getSpan(context.active());
  return carrier.traceparent ? { traceparent: carrier.traceparent, correlationId: span?.spanContext().traceId } : {};
}
