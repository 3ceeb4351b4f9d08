// Routes whose body is a file, not JSON: the PUT of an upload URL takes the raw ZIP under any Content-Type
// or none (the hosted service's clients send application/octet-stream, ours application/zip, curl may send
// application/x-www-form-urlencoded or even application/json), and the v2 direct upload takes a multipart form.
// Fastify picks a body parser by Content-Type after the onRequest hooks, so that hook makes such a route's
// body reach the handler as the request stream, unparsed, whatever the client declared.
import { applyDecorators, SetMetadata } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';

export const RAW_BODY = 'spawnpoint:raw-body';
type BodyKind = 'raw' | 'multipart';
interface BodyRouteConfig { spawnpointBody?: BodyKind }

/** The content types whose body reaches a handler as the request stream (only routes marked @RawBody take one: else 415). */
export const STREAMED_CONTENT_TYPES = ['application/zip', 'application/octet-stream', 'application/x-zip-compressed', 'multipart/form-data'];

/** The route reads its body as a stream: `raw` whatever its Content-Type, `multipart` when it is a form (else unread). */
export const RawBody = (kind: BodyKind = 'raw') => applyDecorators(SetMetadata(RAW_BODY, true), RouteConfig({ spawnpointBody: kind } satisfies BodyRouteConfig));

export function installRawBodyRoutes(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (req: FastifyRequest, _reply, done) => {
    const kind = (req.routeOptions.config as BodyRouteConfig | undefined)?.spawnpointBody;
    if (kind) {
      const type = req.raw.headers['content-type'];
      const form = kind === 'multipart' && typeof type === 'string' && /^multipart\/form-data\b/i.test(type);
      if (!form) req.raw.headers['content-type'] = 'application/octet-stream';
    }
    done();
  });
}
