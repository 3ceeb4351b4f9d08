// A CLIENT span per outbound call to an identity provider (Steam, PlayFab, a JWKS URL), in the trace of
// the request that needs the player verified. Never the URL itself: Steam's carries the project's web API
// key in its query string. Only inside a sampled span, so with tracing off a call costs one lookup.
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

// Looked up per use: a cached tracer would keep pointing at a provider registered earlier.
const tracer = () => trace.getTracer('spawnpoint.gateway');

export function providerSpan<T>(provider: string, method: string, url: string, fn: () => Promise<T>, statusOf: (result: T) => number): Promise<T> {
  if (!trace.getActiveSpan()?.isRecording()) return fn();
  let target: URL | undefined;
  try {
    target = new URL(url);
  } catch {
    target = undefined;
  }
  const attributes = {
    'http.request.method': method, 'spawnpoint.identity.provider': provider,
    ...(target ? { 'server.address': target.hostname, 'server.port': Number(target.port || (target.protocol === 'https:' ? 443 : 80)), 'url.scheme': target.protocol.replace(':', '') } : {}),
  };
  return tracer().startActiveSpan(`${method} ${provider}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    try {
      const result = await fn();
      const status = statusOf(result);
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      return result;
    } catch (err) {
      // Messages only: a fetch error can quote the URL.
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.name ?? 'error' });
      throw err;
    } finally {
      span.end();
    }
  });
}
