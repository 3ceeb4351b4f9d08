// Slow clients (ADR-0020): a connection costs the gateway memory and a file descriptor for as long as the
// client keeps it, so a client that sends its request slowly must not keep it for good. Both listeners:
//  - headers: the whole head within headersTimeoutMs, else 408 and closed (Node's headersTimeout);
//  - body: a request whose body is still arriving is stalled when a window of bodyIdleMs brings fewer than
//    bodyMinBytes (while the gateway waits for data: time our own reader holds back does not count), and a
//    parsed (JSON) body must arrive whole within bodyTimeoutMs; either is 408 in the Error body, and the
//    connection is closed. An upload has no total limit: a slow but steady one is fine;
//  - at most maxIncompletePerSource requests with a body still arriving per client address (429);
//  - idle: a connection with no traffic for idleTimeoutMs is closed (event streams send a ping well within
//    it), and an idle keep-alive connection after keepAliveTimeoutMs.
// Every value comes from the environment (docs/operations.md "Slow clients").
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PassThrough, type Readable } from 'node:stream';
import { RemoteError } from '@spawnpoint/messaging';

export interface SlowClientLimits {
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  bodyIdleMs: number;
  bodyMinBytes: number;
  idleTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** 0: no cap. */
  maxIncompletePerSource: number;
}

export const SLOW_CLIENT_DEFAULTS: SlowClientLimits = {
  headersTimeoutMs: 10_000,
  bodyTimeoutMs: 30_000,
  bodyIdleMs: 10_000,
  bodyMinBytes: 1024,
  idleTimeoutMs: 120_000,
  keepAliveTimeoutMs: 72_000,
  maxIncompletePerSource: 256,
};

const ENV: Record<keyof SlowClientLimits, string> = {
  headersTimeoutMs: 'SPAWNPOINT_HTTP_HEADERS_TIMEOUT_MS',
  bodyTimeoutMs: 'SPAWNPOINT_HTTP_BODY_TIMEOUT_MS',
  bodyIdleMs: 'SPAWNPOINT_HTTP_BODY_IDLE_MS',
  bodyMinBytes: 'SPAWNPOINT_HTTP_BODY_MIN_BYTES',
  idleTimeoutMs: 'SPAWNPOINT_HTTP_IDLE_TIMEOUT_MS',
  keepAliveTimeoutMs: 'SPAWNPOINT_HTTP_KEEPALIVE_TIMEOUT_MS',
  maxIncompletePerSource: 'SPAWNPOINT_HTTP_MAX_INCOMPLETE_PER_SOURCE',
};

/** The limits from the environment; a value that is not a whole number ≥ 0 (≥ 1 for times) is refused at start. */
export function slowClientLimits(env: NodeJS.ProcessEnv = process.env): SlowClientLimits {
  const limits = { ...SLOW_CLIENT_DEFAULTS };
  for (const [field, name] of Object.entries(ENV) as [keyof SlowClientLimits, string][]) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const value = Number(raw);
    const min = field === 'maxIncompletePerSource' || field === 'bodyMinBytes' ? 0 : 1;
    if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be a whole number ≥ ${min}, not "${raw}"`);
    limits[field] = value;
  }
  return limits;
}

/** Fastify's and Node's server options for the limits (headers, idle and keep-alive: the body is the hooks'). */
export function serverTimeouts(limits: SlowClientLimits) {
  return {
    connectionTimeout: limits.idleTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // Node checks the headers deadline on this period (30 s by default: a trickle would be held that long).
    http: { headersTimeout: limits.headersTimeoutMs, connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))) },
  };
}

export const bodyTimeout = (error: string) => Object.assign(new RemoteError({ error, status: 408 }), { statusCode: 408 });

/** Routes whose body is a file read as a stream (raw-body.ts): no total time limit, only the stall check. */
const streamedBody = (req: FastifyRequest) => Boolean((req.routeOptions.config as { spawnpointBody?: string } | undefined)?.spawnpointBody);

function hasBody(req: FastifyRequest): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** preParsing: a body still arriving is read through a watch that ends it with 408 when it stalls or takes too long. */
export function installBodyTimeouts(fastify: FastifyInstance, limits: SlowClientLimits): void {
  const incomplete = new Map<string, number>();
  fastify.addHook('preParsing', (req, reply, payload, done) => {
    if (!hasBody(req) || req.raw.complete) return done(null, payload);
    const source = req.ip ?? req.raw.socket?.remoteAddress ?? '';
    const open = incomplete.get(source) ?? 0;
    if (limits.maxIncompletePerSource > 0 && open >= limits.maxIncompletePerSource) {
      // As after a 413: the rest of the body is read and dropped for a moment so the client, still
      // sending, reads its 429 rather than a reset; then the connection is closed.
      reply.raw.once('finish', () => lingerThenClose(req));
      return done(Object.assign(new RemoteError({ error: `Too many requests still sending their body from this address (at most ${limits.maxIncompletePerSource})`, status: 429 }), { statusCode: 429 }), undefined);
    }
    incomplete.set(source, open + 1);
    let counted = true;
    const uncount = () => {
      if (!counted) return;
      counted = false;
      const left = (incomplete.get(source) ?? 1) - 1;
      if (left <= 0) incomplete.delete(source);
      else incomplete.set(source, left);
    };
    done(null, watchBody(req, reply, payload, limits, streamedBody(req), uncount));
  });
}

const LINGER_MS = 5_000;

function lingerThenClose(req: FastifyRequest): void {
  const raw = req.raw;
  if (raw.complete) return;
  const timer = setTimeout(() => raw.socket?.destroy(), LINGER_MS).unref();
  raw.once('end', () => {
    clearTimeout(timer);
    raw.socket?.end();
  }).once('close', () => clearTimeout(timer)).resume();
}

function watchBody(req: FastifyRequest, reply: FastifyReply, payload: Readable, limits: SlowClientLimits, streamed: boolean, finished: () => void): Readable {
  const raw = req.raw;
  const watched = new PassThrough({ highWaterMark: 64 * 1024 });
  // Progress: the last moment the body had brought bodyMinBytes more (since the one before); stalled when
  // that is over bodyIdleMs ago. Checked four times a window, so a stall is seen within 1.25 windows.
  let sinceMark = 0;
  let progressAt = Date.now();
  const counter = (chunk: Buffer) => {
    sinceMark += chunk.length;
    if (sinceMark >= limits.bodyMinBytes) {
      sinceMark = 0;
      progressAt = Date.now();
    }
  };
  const fail = (error: string) => {
    if (stopped) return;
    stop();
    // The rest of the body is not read: the connection is closed once the 408 is written.
    void reply.header('connection', 'close');
    payload.unpipe(watched);
    watched.destroy(bodyTimeout(error));
  };
  const window = setInterval(() => {
    if (raw.complete) return stop();
    // Our reader is behind (a slow store): the client is not the one stalling.
    if (watched.writableNeedDrain || payload.isPaused()) progressAt = Date.now();
    else if (Date.now() - progressAt > limits.bodyIdleMs) fail(`Request body stalled: fewer than ${limits.bodyMinBytes} bytes in ${limits.bodyIdleMs / 1000} s`);
  }, Math.max(10, Math.floor(limits.bodyIdleMs / 4)));
  const total = streamed ? null : setTimeout(() => {
    if (!raw.complete) fail(`Request body not received within ${limits.bodyTimeoutMs / 1000} s`);
  }, limits.bodyTimeoutMs);
  let stopped = false;
  function stop(): void {
    if (stopped) return;
    stopped = true;
    clearInterval(window);
    if (total) clearTimeout(total);
    payload.off('data', counter);
    finished();
  }
  payload.on('data', counter);
  payload.once('end', stop);
  // Answered before its body was read (401, 413, …): nothing waits for the rest and no timeout applies;
  // the rest no longer goes through here (else it would wait on a reader that is gone, and 413's linger
  // could not drain it).
  const detach = () => {
    stop();
    if (raw.complete) return;
    payload.unpipe(watched);
    // unpipe paused it: the rest is read and dropped as Node does with any unread body (or 413's linger).
    payload.resume();
  };
  reply.raw.once('finish', detach);
  reply.raw.once('close', detach);
  // Whoever ends the body with an error (this watch, the upload's own idle timer, a size cap), the rest of
  // it is never read: the answer closes the connection. And a reader that stopped listening (the parser
  // answered and left) must not turn the error into a crash.
  watched.on('error', () => {
    if (!reply.raw.headersSent) void reply.header('connection', 'close');
  });
  // A client gone mid-body: the reader sees it as an error (pipe passes on no error, no premature close).
  // (A 4xx: nobody reads the answer, and a client that left is no failure of ours to log as one.)
  const gone = () => Object.assign(new RemoteError({ error: 'Request body incomplete: the client closed the connection', status: 400 }), { statusCode: 400 });
  payload.once('error', (err: Error & { code?: string }) => {
    stop();
    watched.destroy(err.code === 'ECONNRESET' ? gone() : err);
  });
  payload.once('close', () => {
    stop();
    if (!raw.complete && !watched.destroyed) watched.destroy(gone());
  });
  payload.pipe(watched);
  return watched;
}
