// OpenTelemetry for every process. With an exporter (an OTLP endpoint in the environment, or one given in
// tests) the SDK is registered with async-local context, so one trace follows a request through the
// gateway, the bus, the services and into event metadata. Without one, only the W3C propagator is set:
// on Node 20 async-local context costs every await a promise hook (about half the gateway's
// throughput), which buys nothing when no span is exported. The gateway still answers with a
// traceparent either way (docs/adr/0002-tracing-cost.md). What the environment sets: tracing-config.ts.
import { context, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, SimpleSpanProcessor, SpanExporter } from '@opentelemetry/sdk-trace-node';
import { platformVersion } from '../metrics/registry';
import { exportsSpans, samplerFrom, serviceResourceAttributes } from './tracing-config';

let provider: NodeTracerProvider | null = null;

/**
 * Registers the SDK when spans are exported: OTLP/HTTP (JSON) to the endpoint in the environment, in
 * batches (OTEL_BSP_*), or to `exporter` (tests), span by span. Idempotent; null when nothing is exported.
 */
export function setupTracing(serviceName: string, options: { exporter?: SpanExporter } = {}): NodeTracerProvider | null {
  if (provider) return provider;
  const env = process.env;
  const processor = options.exporter ? new SimpleSpanProcessor(options.exporter) : exportsSpans(env) ? new BatchSpanProcessor(new OTLPTraceExporter()) : null;
  if (!processor) {
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    return null;
  }
  // OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME win over ours, as the SDK's configuration says.
  const resource = defaultResource()
    .merge(resourceFromAttributes(serviceResourceAttributes(serviceName, platformVersion())))
    .merge(detectResources({ detectors: [envDetector] }));
  const sampler = samplerFrom(env);
  provider = new NodeTracerProvider({ resource, spanProcessors: [processor], ...(sampler ? { sampler } : {}) });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  return provider;
}

/** Whether spans are recorded in this process (the SDK is registered). */
export function tracingEnabled(): boolean {
  return provider !== null;
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
