// Creates the HTTP application around a root module (the gateway alone, or every service at once).
import { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import { recordRoute } from './http/route-table';
import { endRequestSpan, enterRequestContext, startRequestSpan } from './http/tracing-hooks';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const ALLOWED_HEADERS = 'api-key, content-type, x-player-id, x-player-token, client-auth-token, last-event-id, x-request-id, traceparent';
const EXPOSED_HEADERS = 'x-request-id, x-ratelimit-limit, x-ratelimit-remaining, retry-after';

export async function createHttpApp(root: Type<unknown>): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: 1024 * 1024,
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true },
  });
  const fastify = adapter.getInstance();
  fastify.addHook('onRoute', (route) => recordRoute(route.method as string | string[], route.url));
  fastify.addHook('onRequest', (req, reply, done) => {
    void reply.header('x-request-id', req.id);
    // CORS: browser game clients (WebGL builds, web lobbies) call the API from their own origin. The
    // key travels in a header, never in cookies, so any origin may ask; preflights are answered here.
    void reply.header('access-control-allow-origin', '*').header('access-control-expose-headers', EXPOSED_HEADERS);
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
      void reply.code(204).header('access-control-allow-methods', 'GET, POST, PUT, PATCH, DELETE')
        .header('access-control-allow-headers', ALLOWED_HEADERS).header('access-control-max-age', '600').send();
      return;
    }
    done();
  });
  fastify.addHook('onRequest', (req, reply, done) => startRequestSpan(req, (k, v) => void reply.header(k, v), done));
  fastify.addHook('preHandler', (req, _reply, done) => enterRequestContext(req, done));
  fastify.addHook('onResponse', (req, reply, done) => {
    endRequestSpan(req, reply.statusCode);
    done();
  });
  // Uploads arrive as raw streams; the upload handler counts and caps the bytes itself.
  fastify.addContentTypeParser(['application/zip', 'application/octet-stream', 'application/x-zip-compressed'], (_req, payload, done) => done(null, payload));
  const app = await NestFactory.create<NestFastifyApplication>(root, adapter, { logger: ['error', 'warn'] });
  app.enableShutdownHooks();
  return app;
}
