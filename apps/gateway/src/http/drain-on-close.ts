// Closing the listener waits for every open connection. Node reaps the keep-alive connections that are
// idle when close begins, but a request in flight then leaves its connection idle afterwards, and a
// client that keeps it (a game's SDK, a load balancer) held the close open for the keep-alive timeout
// (72 s, past any SIGKILL grace): the process died before its games and database were stopped.
import type { FastifyInstance } from 'fastify';

const REAP_EVERY_MS = 50;

/** While closing, ends each connection as soon as its last response is out (a new request on it gets 503). */
export function drainOnClose(fastify: FastifyInstance): void {
  fastify.addHook('preClose', (done) => {
    const server = fastify.server;
    const reap = setInterval(() => server.closeIdleConnections(), REAP_EVERY_MS);
    reap.unref();
    server.once('close', () => clearInterval(reap));
    done();
  });
}
