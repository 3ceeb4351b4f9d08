// The request policy against a real local HTTP server: 429 waits for Retry-After, a lost connection or a 503
// is retried only when repeating is safe (a GET, or a write with its Idempotency-Key, the same key each
// time), an upload (single-use token, no key) is never repeated, and every failure is a typed error.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthError, NetworkError, RateLimitError, ServerError, ValidationError } from './errors';
import { retryAfterSeconds, Transport } from './transport';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, n: number) => void;

describe('Transport', () => {
  let server: http.Server;
  let base: string;
  let handler: Handler;
  let seen: { method: string; url: string; headers: http.IncomingHttpHeaders; at: number }[];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, at: Date.now() });
      req.resume();
      req.on('end', () => handler(req, res, seen.length));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
  });
  beforeEach(() => { seen = []; });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const t = (retries = 3) => new Transport({ baseUrl: base, apiKey: 'pf_test', retry: { retries, baseDelayMs: 10 } });

  it('sends the key, JSON and a fresh Idempotency-Key on a write', async () => {
    handler = (_req, res) => json(res, 201, { ok: true });
    expect(await t().request('POST', '/v3/servers/start', { json: { name: 'a' } })).toEqual({ ok: true });
    expect(seen[0].headers).toMatchObject({ 'api-key': 'pf_test', 'content-type': 'application/json', 'idempotency-key': expect.stringMatching(/^[0-9a-f-]{36}$/) });
    await t().request('POST', '/v3/servers/start', { json: {} });
    expect(seen[1].headers['idempotency-key']).not.toBe(seen[0].headers['idempotency-key']);
  });

  it('waits for Retry-After on 429, then succeeds', async () => {
    handler = (_req, res, n) => (n === 1 ? json(res, 429, { error: 'Too many requests', status: 429 }, { 'retry-after': '1' }) : json(res, 200, { servers: [] }));
    expect(await t().request('GET', '/v3/servers')).toEqual({ servers: [] });
    expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(950);
  });

  it('gives up on 429 after its retries with a RateLimitError carrying retryAfter', async () => {
    handler = (_req, res) => json(res, 429, { error: 'Too many requests', status: 429 }, { 'retry-after': '0' });
    const err = await t(2).request('GET', '/v3/servers').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).retryAfter).toBe(0);
    expect(seen).toHaveLength(3);
  });

  it('repeats a write after a dropped connection with the same Idempotency-Key', async () => {
    handler = (req, res, n) => (n === 1 ? req.socket.destroy() : json(res, 200, { done: n }));
    expect(await t().request('POST', '/v3/servers/x/restart', { json: {} })).toEqual({ done: 2 });
    expect(seen[1].headers['idempotency-key']).toBe(seen[0].headers['idempotency-key']);
  });

  it('retries a GET on 503, but never repeats an upload PUT (single-use token)', async () => {
    handler = (_req, res, n) => (n === 1 ? json(res, 503, { error: 'Unavailable', status: 503 }) : json(res, 200, { ok: n }));
    expect(await t().request('GET', '/v3/builds')).toEqual({ ok: 2 });
    seen = [];
    handler = (_req, res) => json(res, 503, { error: 'Unavailable', status: 503 });
    const err = await t().request('PUT', `${base}/v3/builds/uploads/tok`, { raw: { body: new Uint8Array(10), contentType: 'application/zip', replayable: true }, auth: 'none' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect(seen).toHaveLength(1);
    expect(seen[0].headers['idempotency-key']).toBeUndefined();
    expect(seen[0].headers['api-key']).toBeUndefined();
  });

  it('throws typed errors with the Error body; a non-JSON answer becomes one too', async () => {
    handler = (_req, res) => json(res, 422, { error: 'Validation error', status: 422, detail: [{ loc: ['body', 'name'], msg: 'too short', type: 'string' }] });
    const v = (await t().request('POST', '/v3/servers/start', { json: {} }).catch((e: unknown) => e)) as ValidationError;
    expect(v).toBeInstanceOf(ValidationError);
    expect(v.issues).toEqual([{ loc: ['body', 'name'], msg: 'too short', type: 'string' }]);
    expect(v.request).toBe('POST /v3/servers/start');
    handler = (_req, res) => { res.writeHead(403, { 'content-type': 'text/html' }); res.end('<h1>Forbidden</h1>'); };
    const a = (await t().request('GET', '/v3/builds').catch((e: unknown) => e)) as AuthError;
    expect(a).toBeInstanceOf(AuthError);
    expect(a.body).toEqual({ error: '<h1>Forbidden</h1>', status: 403 });
  });

  it('reports a platform that never answers as a NetworkError after its retries', async () => {
    const dead = new Transport({ baseUrl: 'http://127.0.0.1:9/api', apiKey: 'k', retry: { retries: 1, baseDelayMs: 1 } });
    await expect(dead.request('GET', '/v3/servers')).rejects.toBeInstanceOf(NetworkError);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterSeconds('3')).toBe(3);
    expect(retryAfterSeconds(new Date(Date.now() + 5000).toUTCString())).toBeGreaterThan(3);
    expect(retryAfterSeconds('soon')).toBeNull();
    expect(retryAfterSeconds(null)).toBeNull();
  });
});
