// Spans of the runtimes' outside work: the process runtime's spawn, and a CLIENT span per Kubernetes API
// call. Opened only inside a sampled span (a start request's): background work (watches, timers, sweeps)
// opens none, and without a registered OpenTelemetry SDK this costs one lookup.
import { Attributes, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

// Looked up per use: a cached tracer would keep pointing at a provider registered earlier.
const tracer = () => trace.getTracer('spawnpoint.runtime');

export function runtimeSpan<T>(name: string, kind: SpanKind, attributes: () => Attributes, fn: () => Promise<T>, outcome?: (result: T) => Attributes): Promise<T> {
  if (!trace.getActiveSpan()?.isRecording()) return fn();
  return tracer().startActiveSpan(name, { kind, attributes: attributes() }, async (span) => {
    try {
      const result = await fn();
      if (outcome) span.setAttributes(outcome(result));
      return result;
    } catch (err) {
      // The API client's errors carry the HTTP status as `code`.
      const status = (err as { code?: unknown }).code;
      if (typeof status === 'number') span.setAttribute('http.response.status_code', status);
      span.recordException(err instanceof Error ? err : String(err));
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * The API client with a CLIENT span around each call (`k8s <operation>`): the operation, the namespace
 * and name it names, the cluster and the region. Everything else goes straight through.
 */
export function tracedApi<A extends object>(api: A, cluster: { region: string; server?: string }): A {
  const server = cluster.server ? safeUrl(cluster.server) : undefined;
  return new Proxy(api, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      return (...args: unknown[]) => runtimeSpan(`k8s ${prop}`, SpanKind.CLIENT, () => {
        const params = (args[0] ?? {}) as { namespace?: unknown; name?: unknown };
        return {
          'k8s.operation': prop, 'spawnpoint.region': cluster.region,
          ...(typeof params.namespace === 'string' ? { 'k8s.namespace.name': params.namespace } : {}),
          ...(typeof params.name === 'string' ? { 'k8s.resource.name': params.name } : {}),
          ...(server ? { 'server.address': server.hostname, 'server.port': Number(server.port || (server.protocol === 'https:' ? 443 : 80)) } : {}),
        };
      }, () => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args));
    },
  });
}

function safeUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}
