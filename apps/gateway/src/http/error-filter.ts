// Every error leaves as the spec's body {error, status, detail?}; nothing else ever reaches a client.
import { ArgumentsHost, Catch, ExceptionFilter, HttpException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RemoteErrorBody } from '@spawnpoint/messaging';
import { toErrorBody } from '@spawnpoint/platform';
import { logger } from '@spawnpoint/logging';
import { requestLogFields } from './access-log';
import { allowedMethods } from './route-table';
import { retryAfterOn503 } from './request-deadline';

const log = logger('http');

export function httpErrorBody(err: unknown, req?: FastifyRequest): RemoteErrorBody {
  if (err instanceof HttpException) {
    const status = err.getStatus();
    if (status === 404 && req) {
      const allowed = allowedMethods(req.url);
      if (allowed.length > 0) return { error: `Method ${req.method} not allowed; use ${allowed.join(', ')}`, status: 405 };
      return { error: 'Not found', status: 404 };
    }
    const r = err.getResponse();
    const message = typeof r === 'string' ? r : ((r as { message?: unknown }).message ?? err.message);
    return { error: Array.isArray(message) ? message.join('; ') : String(message), status };
  }
  const fastifyErr = err as { statusCode?: number; code?: string; message?: string };
  if (typeof fastifyErr?.statusCode === 'number' && fastifyErr.statusCode < 500 && fastifyErr.code?.startsWith('FST_')) {
    if (fastifyErr.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return { error: 'Unsupported content type', status: 415 };
    if (fastifyErr.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return { error: 'Request body too large', status: 413 };
    return { error: fastifyErr.statusCode === 400 ? 'Request body is not valid JSON' : (fastifyErr.message ?? 'Bad request'), status: fastifyErr.statusCode };
  }
  if (err instanceof SyntaxError) return { error: 'Request body is not valid JSON', status: 400 };
  return toErrorBody(err);
}

@Catch()
export class ErrorFilter implements ExceptionFilter {
  catch(err: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<FastifyRequest>();
    const reply = ctx.getResponse<FastifyReply>();
    const body = httpErrorBody(err, req);
    if (body.status >= 500 && body.status !== 503) log.error({ err, ...requestLogFields(req, reply) }, `${req.method} ${req.routeOptions?.url ?? 'unmatched'} failed`);
    if (body.status === 405) reply.header('allow', allowedMethods(req.url).join(', '));
    retryAfterOn503(reply, body.status);
    void reply.status(body.status).type('application/json').send(body);
  }
}
