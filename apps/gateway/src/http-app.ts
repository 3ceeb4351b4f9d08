// Creates the HTTP application around a root module (the gateway alone, or every service at once).
import { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { installRequestHooks, listenerOptions } from './http/request-hooks';
import { recordRoute } from './http/route-table';
import { installMetricsHook } from './http/metrics-hook';
import { installRawBodyRoutes, STREAMED_CONTENT_TYPES } from './http/raw-body';
import { metricsEnabled, NestLogger } from '@spawnpoint/platform';

const ALLOWED_HEADERS = 'api-key, content-type, x-player-id, x-player-token, client-auth-token, last-event-id, x-request-id, traceparent, idempotency-key, x-request-timeout-ms';
const EXPOSED_HEADERS = 'x-request-id, x-ratelimit-limit, x-ratelimit-remaining, retry-after, idempotent-replayed';

/** `shutdownHooks: false`: the caller handles signals (standalone closes its database after the app). */
export async function createHttpApp(root: Type<unknown>, options: { shutdownHooks?: boolean } = {}): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter(listenerOptions());
  const fastify = adapter.getInstance();
  fastify.addHook('onRoute', (route) => recordRoute(route.method as string | string[], route.url));
  // Nest's adapter brings its own fastify (5.11) beside the gateway's (5.12): same API, distinct types.
  // First, so the time covers every other hook; only when metrics are on (the ops server runs).
  if (metricsEnabled()) installMetricsHook(fastify as unknown as FastifyInstance);
  installRequestHooks(fastify as unknown as FastifyInstance, { methods: 'GET, POST, PUT, PATCH, DELETE', allowedHeaders: ALLOWED_HEADERS, exposedHeaders: EXPOSED_HEADERS });
  // Uploads arrive as raw streams; the upload handlers count and cap the bytes themselves. A route marked
  // @RawBody gets its body so whatever the client declared (raw-body.ts).
  installRawBodyRoutes(fastify as unknown as FastifyInstance);
  fastify.addContentTypeParser(STREAMED_CONTENT_TYPES, (_req, payload, done) => done(null, payload));
  // bodyParser off: Fastify's own JSON parser stays, and Nest adds no form parser (a form is not JSON: 415).
  const app = await NestFactory.create<NestFastifyApplication>(root, adapter, { logger: new NestLogger(), bodyParser: false, abortOnError: false });
  if (options.shutdownHooks !== false) app.enableShutdownHooks();
  return app;
}
