// Creates the HTTP application around a root module (the gateway alone, or every service at once).
import { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import { recordRoute } from './http/route-table';
import { endRequestSpan, enterRequestContext, startRequestSpan } from './http/tracing-hooks';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

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
