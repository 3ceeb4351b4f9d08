// What the environment says about tracing, as pure functions (tracing.ts applies them):
// - spans are exported when an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT, or the traces-only
//   OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), unless OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none;
// - the sampler: OTEL_TRACES_SAMPLER (+ _ARG) when set, as the SDK reads it; else our
//   SPAWNPOINT_TRACE_SAMPLE_RATIO as ParentBased(TraceIdRatioBased(ratio)): a caller's decision is kept, and
//   that share of new traces is recorded; neither set: every trace (the SDK's parentbased_always_on);
// - the resource: service.name spawnpoint-<app>, service.version, service.instance.id; the SDK's
//   OTEL_RESOURCE_ATTRIBUTES / OTEL_SERVICE_NAME are merged over them (tracing.ts).
import os from 'node:os';
import { ParentBasedSampler, Sampler, TraceIdRatioBasedSampler } from '@opentelemetry/sdk-trace-node';

export const SAMPLE_RATIO_ENV = 'SPAWNPOINT_TRACE_SAMPLE_RATIO';

export function exportsSpans(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
}

/** Our sampler, or undefined to leave it to the SDK (OTEL_TRACES_SAMPLER, or its default). A bad ratio is refused at start. */
export function samplerFrom(env: NodeJS.ProcessEnv): Sampler | undefined {
  if (env.OTEL_TRACES_SAMPLER?.trim()) return undefined;
  const raw = env[SAMPLE_RATIO_ENV]?.trim();
  if (!raw) return undefined;
  const ratio = Number(raw);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) throw new Error(`${SAMPLE_RATIO_ENV} must be a number from 0 to 1, not "${raw}"`);
  return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
}

/** The process's own resource attributes (before the environment's are merged over them). */
export function serviceResourceAttributes(app: string, version: string, host = os.hostname(), pid = process.pid): Record<string, string | number> {
  return {
    'service.name': `spawnpoint-${app}`,
    'service.version': version,
    // Unique per process: the pod name in a cluster; several processes share a host in distributed mode.
    'service.instance.id': `${host}-${pid}`,
    'host.name': host,
    'process.pid': pid,
  };
}
