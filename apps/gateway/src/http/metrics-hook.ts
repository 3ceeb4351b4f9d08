// The gateway's RED metrics hook (only when metrics are on): one hrtime when the request arrives, one
// observe when its response is sent. `route` is Fastify's matched template (undefined: `unmatched`).
import type { FastifyInstance } from 'fastify';
import { observeHttpRequest } from '@spawnpoint/platform';

const STARTED = 'spawnpointStarted';

export function installMetricsHook(fastify: FastifyInstance): void {
  fastify.decorateRequest(STARTED, 0);
  fastify.addHook('onRequest', (req, _reply, done) => {
    (req as unknown as Record<string, number>)[STARTED] = performance.now();
    done();
  });
  fastify.addHook('onResponse', (req, reply, done) => {
    const seconds = (performance.now() - (req as unknown as Record<string, number>)[STARTED]) / 1000;
    observeHttpRequest(req.method, req.routeOptions.url, reply.statusCode, seconds);
    done();
  });
}
