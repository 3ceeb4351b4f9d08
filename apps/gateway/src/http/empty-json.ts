// An empty body declared application/json is no body, not a 400: the hosted service's own clients send
// one (its editor's POST of a v2 upload URL, the v3 lobby client's POSTs of start, end-match and
// confirm-match), and decisions.md lets a route that takes no body take an empty one whatever its type.
// A route that needs a body then answers as for a missing one (422). Anything else is Fastify's own
// JSON parser, with its prototype-poisoning refusals.
import type { FastifyInstance } from 'fastify';

export function acceptEmptyJson(fastify: FastifyInstance): void {
  const json = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body === '') {
      done(null, undefined);
      return;
    }
    json(req, body as string, done);
  });
}
