// The gateway's RED metrics hook (only when metrics are on): one observe when a response is sent, timed by
// Fastify's own start time (`reply.elapsedTime`), so a request pays for no hook of ours on the way in.
// `route` is Fastify's matched template (undefined: `unmatched`).
import type { FastifyInstance } from 'fastify';
import { observeHttpRequest } from '@spawnpoint/platform';

export function installMetricsHook(fastify: FastifyInstance): void {
  fastify.addHook('onResponse', (req, reply, done) => {
    observeHttpRequest(req.method, req.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
