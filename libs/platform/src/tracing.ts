// OpenTelemetry for every process: W3C trace context, async-local context, and an OTLP/HTTP exporter
// when OTEL_EXPORTER_OTLP_ENDPOINT is set. Without an exporter spans still get real ids, so trace ids
// show up in responses (traceparent) and in event metadata.
import { context, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, SimpleSpanProcessor, SpanExporter } from '@opentelemetry/sdk-trace-node';

let provider: NodeTracerProvider | null = null;

export function setupTracing(serviceName: string, options: { exporter?: SpanExporter } = {}): NodeTracerProvider {
  if (provider) return provider;
  const spanProcessors = [];
  if (options.exporter) spanProcessors.push(new SimpleSpanProcessor(options.exporter));
  else if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) spanProcessors.push(new BatchSpanProcessor(new OTLPTraceExporter()));
  provider = new NodeTracerProvider({ resource: resourceFromAttributes({ 'service.name': `spawnpoint-${serviceName}` }), spanProcessors });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  return provider;
}

export async function shutdownTracing(): Promise<void> {
  if (!provider) return;
  await provider.shutdown().catch(() => undefined);
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
