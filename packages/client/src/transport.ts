// One HTTP request with the SDK's policy: JSON in and out, the spec's Error body thrown as a typed error,
// an Idempotency-Key on every write (so a retry can never do a write twice: the gateway answers a repeated
// key with the first answer), and retries with backoff: 429 after Retry-After, 502/503/504 and lost
// connections when the request is safe to repeat.
import { errorFor, NetworkError, SpawnpointError } from './errors';
import type { ErrorBody } from './types';

export interface RetryPolicy {
  /** Retries after the first attempt (default 3). */
  retries?: number;
  /** First backoff in ms (default 250); doubles each retry, with full jitter. */
  baseDelayMs?: number;
  /** Longest single wait, Retry-After included (default 20 s). */
  maxDelayMs?: number;
}

export interface TransportOptions {
  /** The API base: `https://play.example.com/api` (what the interface calls the base URL). */
  baseUrl: string;
  /** A project key: `pf_…` (server key) or `pfclient_…` (client key). */
  apiKey?: string;
  /** The operator's admin token (SPAWNPOINT_ADMIN_TOKEN), for the admin routes. */
  adminToken?: string;
  retry?: RetryPolicy;
  /** Another fetch (tests, proxies); the global one by default. */
  fetch?: typeof fetch;
  /** Headers added to every request (tracing: `traceparent`). */
  headers?: Record<string, string>;
}

export type Query = Record<string, string | number | boolean | null | undefined>;

export interface RequestOptions {
  query?: Query;
  /** A JSON body. */
  json?: unknown;
  /** A raw body (an upload) and its type; a one-shot stream is never retried. */
  raw?: { body: BodyInit; contentType: string; replayable: boolean };
  headers?: Record<string, string | undefined>;
  auth?: 'key' | 'admin' | 'none';
  signal?: AbortSignal;
  /** Overrides the generated Idempotency-Key of a write. */
  idempotencyKey?: string;
  /** The answer is not JSON (204, a binary artifact): the Response is returned. */
  rawResponse?: boolean;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const RETRYABLE_STATUS = new Set([502, 503, 504]);

export function randomId(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (c?.randomUUID) return c.randomUUID();
  return 'xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx'.replace(/[xy]/g, (ch) => {
    const r = (Math.random() * 16) | 0;
    return (ch === 'x' ? r : (r & 0x3) | 0x8).toString(16);
  });
}

/** Seconds from a Retry-After header (delta-seconds or an HTTP date); null when absent or unreadable. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, (at - now) / 1000);
}

const sleep = (ms: number, signal?: AbortSignal) => new Promise<void>((resolve, reject) => {
  if (signal?.aborted) return reject(signal.reason);
  const t = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
  const onAbort = () => { clearTimeout(t); reject(signal!.reason); };
  signal?.addEventListener('abort', onAbort, { once: true });
});

export class Transport {
  readonly baseUrl: string;
  readonly fetchFn: typeof fetch;

  constructor(readonly options: TransportOptions) {
    if (!options.baseUrl) throw new TypeError('baseUrl is required (the API base, e.g. http://localhost:8080/api)');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    const f = options.fetch ?? (globalThis as { fetch?: typeof fetch }).fetch;
    if (!f) throw new TypeError('no fetch available: pass options.fetch');
    this.fetchFn = f.bind(globalThis);
  }

  url(path: string, query?: Query): string {
    const u = new URL(path.startsWith('http') ? path : this.baseUrl + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null) u.searchParams.set(k, String(v));
    return u.toString();
  }

  headers(auth: RequestOptions['auth'] = 'key', extra: Record<string, string | undefined> = {}): Record<string, string> {
    const h: Record<string, string> = { ...(this.options.headers ?? {}) };
    if (auth === 'key') {
      if (!this.options.apiKey) throw new TypeError('this call needs an apiKey');
      h['api-key'] = this.options.apiKey;
    } else if (auth === 'admin') {
      if (!this.options.adminToken) throw new TypeError('this call needs an adminToken');
      h.authorization = `Bearer ${this.options.adminToken}`;
    }
    for (const [k, v] of Object.entries(extra)) if (v !== undefined) h[k] = v;
    return h;
  }

  /** One unauthenticated GET, no retries, the Response as it came (health checks). */
  fetchRaw(path: string): Promise<Response> {
    return this.fetchFn(this.url(path), { headers: this.headers('none') });
  }

  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const url = this.url(path, opts.query);
    const label = `${method} ${path}`;
    const headers = this.headers(opts.auth, opts.headers);
    if (WRITES.has(method) && method !== 'PUT') headers['idempotency-key'] = opts.idempotencyKey ?? randomId();
    let body: BodyInit | undefined;
    if (opts.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.json);
    } else if (opts.raw) {
      headers['content-type'] = opts.raw.contentType;
      body = opts.raw.body;
    }
    // A write without an idempotency key (an upload PUT, single-use token) or a one-shot body is not repeated
    // after a lost connection: it may have been done.
    const repeatable = (!WRITES.has(method) || 'idempotency-key' in headers) && (!opts.raw || opts.raw.replayable);
    const policy = { retries: 3, baseDelayMs: 250, maxDelayMs: 20_000, ...(this.options.retry ?? {}) };
    for (let attempt = 0; ; attempt++) {
      const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt) * Math.random();
      let res: Response;
      try {
        res = await this.fetchFn(url, { method, headers, body, signal: opts.signal, ...(opts.raw && !opts.raw.replayable ? { duplex: 'half' } : {}) } as RequestInit);
      } catch (err) {
        if (opts.signal?.aborted) throw err;
        if (repeatable && attempt < policy.retries) { await sleep(backoff, opts.signal); continue; }
        throw new NetworkError(label, err);
      }
      if (res.ok) {
        if (opts.rawResponse) return res as unknown as T;
        const text = await res.text();
        return (text ? JSON.parse(text) : undefined) as T;
      }
      const retryAfter = retryAfterSeconds(res.headers.get('retry-after'));
      const retry = attempt < policy.retries && (res.status === 429 || (RETRYABLE_STATUS.has(res.status) && repeatable));
      if (retry && !(opts.raw && !opts.raw.replayable)) {
        await res.body?.cancel().catch(() => undefined);
        await sleep(retryAfter !== null ? Math.min(policy.maxDelayMs, retryAfter * 1000) : backoff, opts.signal);
        continue;
      }
      throw errorFor(await errorBody(res), label, retryAfter);
    }
  }
}

/** The Error body of a failed answer; a proxy's HTML page becomes one too. */
async function errorBody(res: Response): Promise<ErrorBody> {
  const text = await res.text().catch(() => '');
  try {
    const parsed = JSON.parse(text) as Partial<ErrorBody>;
    if (parsed && typeof parsed.error === 'string') return { error: parsed.error, status: typeof parsed.status === 'number' ? parsed.status : res.status, ...(parsed.detail !== undefined ? { detail: parsed.detail } : {}) };
  } catch { /* not JSON */ }
  return { error: text.slice(0, 200) || res.statusText || `HTTP ${res.status}`, status: res.status };
}

export { SpawnpointError };
