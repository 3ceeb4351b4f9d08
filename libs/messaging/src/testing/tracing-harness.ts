// A real OpenTelemetry SDK registered globally for one test, recording spans in memory.
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

export interface TracingHarness {
  exporter: InMemorySpanExporter;
  /** Unregisters everything, so later tests run with the no-op API again. */
  dispose(): Promise<void>;
}

export function installTracing(): TracingHarness {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  return {
    exporter,
    async dispose() {
      trace.disable();
      context.disable();
      propagation.disable();
      await provider.shutdown();
    },
  };
}
