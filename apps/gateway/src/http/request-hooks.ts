// What every HTTP listener of the gateway does around a request (the API and the legacy lobby API):
// its options, the request id, empty JSON bodies, CORS with answered preflights, the request's trace span and deadline, its access log line, and a close that waits for no idle connection.
import type { FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import { accessLogEnabled, installAccessLog } from './access-log';
import { checkUrl, clientErrorHandler, frameworkErrors, lingerAfterTooLarge, MAX_URL_BYTES } from './framework-errors';
import { endRequestSpan, enterRequestContext, startRequestSpan } from './tracing-hooks';
import { drainOnClose } from './drain-on-close';
import { acceptEmptyJson } from './empty-json';
import { enterRequestDeadline } from './request-deadline';
import { installBodyTimeouts, serverTimeouts, SlowClientLimits, slowClientLimits } from './slow-clients';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Fastify options shared by the listeners: the slow-client timeouts (headers, idle, keep-alive), body limit, the client's x-request-id when valid, trailing slashes,
 * refusals before routing in the Error body; path parameters as long as the URL (their schemas limit them: 422).
 */
export const listenerOptions = (limits: SlowClientLimits = slowClientLimits()) => ({
  ...serverTimeouts(limits),
  bodyLimit: 1024 * 1024,
  genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => {
    const given = req.headers['x-request-id'];
    return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
  },
  routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_URL_BYTES },
  clientErrorHandler,
  frameworkErrors,
});

export interface CorsPolicy { methods: string; allowedHeaders: string; exposedHeaders: string }

export function installRequestHooks(fastify: FastifyInstance, cors: CorsPolicy, limits: SlowClientLimits = slowClientLimits()): void {
  drainOnClose(fastify);
  // Bodies that stall or take too long are 408; at most so many still arriving per address (slow-clients.ts).
  installBodyTimeouts(fastify, limits);
  // JSON is the only text the API reads: a text/plain body is 415, not a string for the schemas to refuse.
  fastify.removeContentTypeParser('text/plain');
  // An empty JSON body is no body, on every route of both listeners (decisions.md "Conventions").
  acceptEmptyJson(fastify);
  fastify.addHook('onRequest', (req, reply, done) => {
    void reply.header('x-request-id', req.id);
    // CORS: browser game clients (WebGL builds, web lobbies) call the API from their own origin. The
    // key travels in a header, never in cookies, so any origin may ask; preflights are answered here.
    void reply.header('access-control-allow-origin', '*').header('access-control-expose-headers', cors.exposedHeaders);
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
      void reply.code(204).header('access-control-allow-methods', cors.methods)
        .header('access-control-allow-headers', cors.allowedHeaders).header('access-control-max-age', '600').send();
      return;
    }
    done();
  });
  fastify.addHook('onRequest', checkUrl);
  lingerAfterTooLarge(fastify);
  fastify.addHook('onRequest', (req, reply, done) => startRequestSpan(req, (k, v) => void reply.header(k, v), done));
  fastify.addHook('preHandler', (req, _reply, done) => enterRequestContext(req, done));
  // The client's deadline for the bus requests the handler sends (x-request-timeout-ms, ADR-0020).
  fastify.addHook('preHandler', enterRequestDeadline);
  fastify.addHook('onResponse', (req, reply, done) => {
    endRequestSpan(req, reply.statusCode);
    done();
  });
  if (accessLogEnabled()) installAccessLog(fastify);
}
