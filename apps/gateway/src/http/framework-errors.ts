// Refusals that happen before a route runs, in the spec's Error body {error, status} like every other
// error (decisions.md): Node's HTTP parser (malformed request 400, URI too long 414, headers too large 431,
// request timeout 408) and Fastify's router (a URL that does not decode 400, a path parameter too long 414).
import { ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Longest request target (path and query) answered; longer is 414. Node's own limit is 16 KiB for the whole head. */
export const MAX_URL_BYTES = 8192;

// Structural types: the Nest adapter's fastify and the gateway's are two versions of the same API.
type ClientError = Error & { code?: string; rawPacket?: unknown };

/**
 * Node's limit counts the request line and the headers together. When the packet it stopped in has a
 * first line (the request line, or the part of a long URL still arriving) over MAX_URL_BYTES, or no line
 * end at all, the URL is what is too long: 414; otherwise the headers: 431.
 */
function overflowStatus(err: ClientError): 414 | 431 {
  const packet = err.rawPacket;
  if (!Buffer.isBuffer(packet)) return 431;
  const lineEnd = packet.indexOf('\r\n');
  return lineEnd < 0 || lineEnd > MAX_URL_BYTES ? 414 : 431;
}

export function clientErrorBody(err: ClientError): { error: string; status: number } {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return overflowStatus(err) === 414
        ? { error: `URI too long (at most ${MAX_URL_BYTES} bytes)`, status: 414 }
        : { error: 'Request header fields too large', status: 431 };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return { error: 'Request timeout', status: 408 };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { error: 'Request body too large', status: 413 };
    default:
      return { error: 'Bad request: malformed HTTP', status: 400 };
  }
}

/** Fastify's clientErrorHandler: the connection cannot be trusted any more, so the answer closes it. */
export function clientErrorHandler(err: ClientError, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const body = clientErrorBody(err);
    const json = JSON.stringify(body);
    socket.write(`HTTP/1.1 ${body.status} ${STATUS_CODES[body.status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`);
  }
  socket.destroy();
}

/** Fastify's frameworkErrors: the router's refusals (before any hook), with the request id every answer carries. */
export function frameworkErrors(err: Error & { code?: string }, req: { id: string }, reply: { raw: ServerResponse }): void {
  const body = err.code === 'FST_ERR_MAX_PARAM_LENGTH'
    ? { error: `URI too long (a path parameter over ${MAX_URL_BYTES} bytes)`, status: 414 }
    : { error: 'Bad request: the URL is not valid (malformed percent-encoding)', status: 400 };
  const json = JSON.stringify(body);
  reply.raw.writeHead(body.status, {
    'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json), 'x-request-id': req.id, 'access-control-allow-origin': '*',
  });
  reply.raw.end(json);
}

/**
 * onRequest: a URL Node accepted but over MAX_URL_BYTES is 414, and a query string that does not decode
 * (malformed percent-encoding, or bytes that are not UTF-8) is 400 like such a path, before any route or
 * hook spends work on them. (The query parser would otherwise keep the undecoded text as the value.)
 */
export function checkUrl(req: FastifyRequest, reply: FastifyReply, done: () => void): void {
  const url = req.raw.url ?? '';
  if (Buffer.byteLength(url) > MAX_URL_BYTES) {
    void reply.status(414).type('application/json').send({ error: `URI too long (at most ${MAX_URL_BYTES} bytes)`, status: 414 });
    return;
  }
  const q = url.indexOf('?');
  if (q >= 0 && url.includes('%', q)) {
    try {
      decodeURIComponent(url.slice(q + 1));
    } catch {
      void reply.status(400).type('application/json').send({ error: 'Bad request: the query string is not valid (malformed percent-encoding or not UTF-8)', status: 400 });
      return;
    }
  }
  done();
}

/** How long the rest of a refused body is still read (and dropped) after its 413. */
const LINGER_MS = 5_000;

/**
 * Fastify answers 413 before reading an oversized body and closes the connection at once: the client,
 * still sending, then usually gets a connection reset instead of the answer. Keep the connection and drop
 * the rest of the body instead, for at most LINGER_MS; then close.
 */
export function lingerAfterTooLarge(fastify: FastifyInstance): void {
  fastify.addHook('onSend', (_req, reply, payload, done) => {
    if (reply.statusCode === 413) reply.removeHeader('connection');
    done(null, payload);
  });
  fastify.addHook('onResponse', (req, reply, done) => {
    if (reply.statusCode === 413 && !req.raw.complete) {
      const timer = setTimeout(() => req.raw.socket?.destroy(), LINGER_MS).unref();
      req.raw.once('end', () => clearTimeout(timer)).once('close', () => clearTimeout(timer)).resume();
    }
    done();
  });
}
