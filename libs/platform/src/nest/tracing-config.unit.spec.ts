import { ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { exportsSpans, samplerFrom, serviceResourceAttributes } from './tracing-config';

/** Of `n` new traces started under the sampler the env selects, how many are recorded; and whether a sampled caller's child is. */
function sample(env: NodeJS.ProcessEnv, n = 2000): { roots: number; sampledCallerKept: boolean; unsampledCallerKept: boolean } {
  const sampler = samplerFrom(env);
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())], ...(sampler ? { sampler } : {}) });
  const tracer = provider.getTracer('test');
  let roots = 0;
  for (let i = 0; i < n; i++) {
    const span = tracer.startSpan('root', {}, ROOT_CONTEXT);
    if (span.isRecording()) roots++;
    span.end();
  }
  const caller = (flags: TraceFlags) => trace.setSpanContext(ROOT_CONTEXT, { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: flags, isRemote: true });
  return {
    roots,
    sampledCallerKept: tracer.startSpan('child', {}, caller(TraceFlags.SAMPLED)).isRecording(),
    unsampledCallerKept: tracer.startSpan('child', {}, caller(TraceFlags.NONE)).isRecording(),
  };
}

describe('tracing configuration from the environment', () => {
  it('exports spans only when an OTLP endpoint is set and the SDK is not turned off', () => {
    expect(exportsSpans({})).toBe(false);
    expect(exportsSpans({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBe(false);
    expect(exportsSpans({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(exportsSpans({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(exportsSpans({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(exportsSpans({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
  });

  it('SPAWNPOINT_TRACE_SAMPLE_RATIO records that share of new traces and follows a caller\'s decision', () => {
    const tenth = sample({ SPAWNPOINT_TRACE_SAMPLE_RATIO: '0.1' });
    expect(tenth.roots).toBeGreaterThan(100);
    expect(tenth.roots).toBeLessThan(300);
    expect(tenth).toMatchObject({ sampledCallerKept: true, unsampledCallerKept: false });
    expect(sample({ SPAWNPOINT_TRACE_SAMPLE_RATIO: '0' })).toEqual({ roots: 0, sampledCallerKept: true, unsampledCallerKept: false });
    expect(sample({ SPAWNPOINT_TRACE_SAMPLE_RATIO: '1' }).roots).toBe(2000);
  });

  it('without a ratio, or with OTEL_TRACES_SAMPLER set, leaves the sampler to the SDK', () => {
    expect(samplerFrom({})).toBeUndefined();
    expect(samplerFrom({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.5', SPAWNPOINT_TRACE_SAMPLE_RATIO: '0.1' })).toBeUndefined();
    expect(sample({}).roots).toBe(2000);
  });

  it('refuses a ratio that is not a number from 0 to 1', () => {
    for (const bad of ['1.5', '-0.1', 'ten percent', 'NaN']) {
      expect(() => samplerFrom({ SPAWNPOINT_TRACE_SAMPLE_RATIO: bad })).toThrow(`SPAWNPOINT_TRACE_SAMPLE_RATIO must be a number from 0 to 1, not "${bad}"`);
    }
  });

  it('names the service, its version and this process', () => {
    expect(serviceResourceAttributes('gateway', '1.2.3', 'sp-gateway-7d9f-x2x', 1)).toEqual({
      'service.name': 'spawnpoint-gateway', 'service.version': '1.2.3', 'service.instance.id': 'sp-gateway-7d9f-x2x-1',
      'host.name': 'sp-gateway-7d9f-x2x', 'process.pid': 1,
    });
  });
});
