// A tiny JSON client for e2e tests: every call returns status, headers and parsed body. A response on a route
// that the hosted service's published documents describe (v2, legacy lobbies) is checked against them.
import { assertPublished } from './playflow-published';

export interface Res<T = any> { status: number; headers: Headers; body: T }

export function client(baseUrl: string, apiKey?: string) {
  async function call<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Res<T>> {
    const h: Record<string, string> = { ...headers };
    if (apiKey && !('api-key' in h)) h['api-key'] = apiKey;
    let payload: BodyInit | undefined;
    if (body instanceof Uint8Array) payload = body as BodyInit;
    else if (body !== undefined) {
      h['content-type'] ??= 'application/json';
      payload = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const res = await fetch(path.startsWith('http') ? path : `${baseUrl}${path}`, { method, headers: h, body: payload });
    const text = await res.text();
    let parsed: unknown = text;
    try { parsed = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
    assertPublished(method, res.url || (path.startsWith('http') ? path : `${baseUrl}${path}`), res.status, parsed);
    return { status: res.status, headers: res.headers, body: parsed as T };
  }
  return {
    get: <T = any>(p: string, h?: Record<string, string>) => call<T>('GET', p, undefined, h),
    post: <T = any>(p: string, b?: unknown, h?: Record<string, string>) => call<T>('POST', p, b, h),
    put: <T = any>(p: string, b?: unknown, h?: Record<string, string>) => call<T>('PUT', p, b, h),
    patch: <T = any>(p: string, b?: unknown, h?: Record<string, string>) => call<T>('PATCH', p, b, h),
    delete: <T = any>(p: string, h?: Record<string, string>) => call<T>('DELETE', p, undefined, h),
    /** Any method with any body (a DELETE with a JSON body, as the legacy lobby client sends). */
    send: call,
  };
}

export async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: T;
  do {
    last = await fn();
    if (ok(last)) return last;
    await new Promise((r) => setTimeout(r, 50));
  } while (Date.now() < until);
  throw new Error(`${what} not reached in ${timeoutMs} ms; last: ${JSON.stringify(last)}`);
}
