// One access log line per request, on every listener (SPAWNPOINT_ACCESS_LOG, on unless false): method,
// route template (never the raw URL: ids stay out of it), status, duration, the request id (x-request-id)
// and the trace of the traceparent the response carries. The gateway answers every request with one,
// tracing on or off, so a client's traceparent always finds its line. 5xx lines are errors, the rest info.
// Written as JSON text (log.jsonLine): pino's generic path cost the gateway's GET ~10 % of its CPU per request.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { logger, switchFrom } from '@spawnpoint/logging';

const log = logger('http');

/** SPAWNPOINT_ACCESS_LOG: true (default) or false; anything else fails the start. */
export function accessLogEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return switchFrom(env, 'SPAWNPOINT_ACCESS_LOG', true);
}

export interface RequestLogFields {
  request_id: string;
  trace_id?: string;
  span_id?: string;
  project_id?: string;
}

// traceparent: 00-<32 hex trace id>-<16 hex span id>-<2 hex flags>
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;

/** What ties a line to its request: the request id, the trace answered in traceparent, the caller's project once authenticated. */
export function requestLogFields(req: FastifyRequest, reply: FastifyReply): RequestLogFields {
  const fields: RequestLogFields = { request_id: String(req.id) };
  const traced = TRACEPARENT.exec(String(reply.getHeader('traceparent') ?? ''));
  if (traced) {
    fields.trace_id = traced[1];
    fields.span_id = traced[2];
  }
  const projectId = (req as { principal?: { projectId?: string } }).principal?.projectId;
  if (projectId) fields.project_id = projectId;
  return fields;
}

const json = JSON.stringify;

export function installAccessLog(fastify: FastifyInstance): void {
  fastify.addHook('onResponse', (req, reply, done) => {
    const status = reply.statusCode;
    const level = status >= 500 ? 'error' : 'info';
    if (log.isLevelEnabled(level)) {
      const route = req.routeOptions.url ?? 'unmatched';
      const f = requestLogFields(req, reply);
      log.jsonLine(level, `"method":${json(req.method)},"route":${json(route)},"status":${status},"duration_ms":${Math.round(reply.elapsedTime * 100) / 100}`
        + `,"request_id":${json(f.request_id)}${f.trace_id ? `,"trace_id":"${f.trace_id}","span_id":"${f.span_id}"` : ''}${f.project_id ? `,"project_id":${json(f.project_id)}` : ''}`,
      `${req.method} ${route} ${status}`);
    }
    done();
  });
}
