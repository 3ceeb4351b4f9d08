// Runs the input limits on every Nest route after its access guard (a request without a valid key is 401
// before it is 422, as for schema errors) and before its handler. A raw body (the upload content types
// arrive as a stream) is 415 on every route but the ones marked @RawBody() (raw-body.ts).
// A guard, not a global interceptor: any global interceptor puts Nest's RxJS and AsyncResource wrapping
// on every request, which cut GET /v3/servers/{id} to about a third (bench/gateway-get.js).
import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { RemoteError } from '@spawnpoint/messaging';
import { checkRequestInputs } from './input-limits';
import { RAW_BODY } from './raw-body';

@Injectable()
export class InputLimitsGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() === 'http') {
      const req = context.switchToHttp().getRequest<FastifyRequest>();
      if (req.body instanceof Readable && !this.reflector.get<boolean>(RAW_BODY, context.getHandler())) {
        throw new RemoteError({ error: `Unsupported content type ${String(req.headers['content-type'])}: send application/json`, status: 415 });
      }
      checkRequestInputs(req);
    }
    return true;
  }
}
