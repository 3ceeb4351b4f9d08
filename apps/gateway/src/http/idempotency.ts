// Retries that are safe: every POST, PATCH and DELETE runs as a command with an id carried on the bus
// (a re-sent command is joined to its first run by the service), a reply that timed out is asked for
// again before anything is answered (untilKnown), and an `Idempotency-Key` header makes a client's own
// retry answer the first answer again (status and body) within 24 h, per project (and player), on every
// gateway replica (IdempotencyStore). See docs/adr/0007-idempotent-commands.md.
import { CallHandler, ExecutionContext, HttpStatus, Inject, Injectable, NestInterceptor, OnModuleDestroy } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { createHash, randomUUID } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { from, lastValueFrom, Observable } from 'rxjs';
import { logger } from '@spawnpoint/logging';
import { RemoteError, runInCommand } from '@spawnpoint/messaging';
import { READ_MODELS, untilKnown } from '@spawnpoint/platform';
import { ReadModels, readModelsPool } from '@spawnpoint/read-models';
import { httpErrorBody } from './error-filter';
import type { AuthedRequest } from './guard';
import { IdempotencyStore } from './idempotency-store';
import { validationError } from './validation';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
const WRITES = new Set(['POST', 'PATCH', 'DELETE']);
/** 1–255 printable ASCII characters. */
const VALID_KEY = /^[\x20-\x7e]{1,255}$/;
const SWEEP_EVERY_MS = 10 * 60_000;

const sha256 = (s: string) => createHash('sha256').update(s).digest('base64url');

const log = logger('idempotency');

@Injectable()
export class IdempotencyInterceptor implements NestInterceptor, OnModuleDestroy {
  private readonly store: IdempotencyStore;
  private readonly sweeper: NodeJS.Timeout;

  constructor(@Inject(READ_MODELS) db: ReadModels) {
    this.store = new IdempotencyStore(readModelsPool(db));
    this.sweeper = setInterval(() => void this.store.sweep().catch((err) => log.error({ err }, 'idempotency: sweep failed')), SWEEP_EVERY_MS);
    this.sweeper.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<AuthedRequest>();
    if (context.getType() !== 'http' || !WRITES.has(req.method)) return next.handle();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const status = (Reflect.getMetadata(HTTP_CODE_METADATA, context.getHandler()) as number | undefined) ?? (req.method === 'POST' ? HttpStatus.CREATED : HttpStatus.OK);
    return from(this.write(req, reply, next, status));
  }

  private async write(req: AuthedRequest, reply: FastifyReply, next: CallHandler, status: number): Promise<unknown> {
    const header = req.headers[IDEMPOTENCY_KEY_HEADER];
    if (header === undefined) return this.run(`r:${randomUUID()}`, next);
    if (typeof header !== 'string' || !VALID_KEY.test(header)) {
      throw validationError([{ loc: ['header', IDEMPOTENCY_KEY_HEADER], msg: 'Idempotency-Key must be 1-255 printable ASCII characters', type: 'value_error' }]);
    }
    const scope = scopeOf(req);
    const fingerprint = sha256(`${req.method} ${req.url}\n${bodyText(req.body)}`);
    const ref = { scope, key: header, fingerprint };
    const claimed = await this.store.claim(ref).catch((err) => {
      throw new RemoteError({ error: 'Service unavailable', status: 503, detail: `idempotency records: ${(err as Error).message}` });
    });
    if (claimed.kind === 'other_request') {
      throw validationError([{ loc: ['header', IDEMPOTENCY_KEY_HEADER], msg: 'this Idempotency-Key was used for another request (route or body) in the last 24 hours', type: 'value_error' }]);
    }
    if (claimed.kind === 'in_progress') throw new RemoteError({ error: 'A request with this Idempotency-Key is still in progress; retry later for its answer', status: 409 });
    if (claimed.kind === 'done') {
      void reply.header('idempotent-replayed', 'true');
      if (claimed.status >= 400) throw new RemoteError(claimed.body as { error: string; status: number });
      return claimed.body;
    }
    // The command id is the key's: a retry after a 503 re-sends the command the service may have applied.
    const commandId = `k:${sha256(`${scope}\n${header}\n${fingerprint}`)}`;
    let body: unknown;
    try {
      body = await this.run(commandId, next);
    } catch (err) {
      const answer = httpErrorBody(err, req);
      if (answer.status >= 500) await this.store.release(ref).catch(() => undefined);
      else await this.store.complete(ref, answer.status, answer).catch((e) => log.error({ err: e }, 'idempotency: could not store an answer'));
      throw err;
    }
    await this.store.complete(ref, status, body).catch((e) => log.error({ err: e }, 'idempotency: could not store an answer'));
    return body;
  }

  /** The handler as a command (its bus requests carry the id), asked again while its reply times out. */
  private run(commandId: string, next: CallHandler): Promise<unknown> {
    return untilKnown(() => runInCommand({ commandId, outbound: true }, () => lastValueFrom(next.handle(), { defaultValue: undefined })));
  }
}

/** Keys are per project (per player on player routes: two players' requests are never the same), per operator on admin routes. */
function scopeOf(req: AuthedRequest): string {
  if (!req.principal) return 'admin';
  const player = req.headers['x-player-id'];
  return typeof player === 'string' ? `project:${req.principal.projectId}:player:${player}` : `project:${req.principal.projectId}`;
}

/** The parsed body as JSON text; a body nested too deeply even to serialise is refused as such. */
function bodyText(body: unknown): string {
  try {
    return JSON.stringify(body ?? null);
  } catch {
    throw validationError([{ loc: ['body'], msg: 'JSON value nested too deeply', type: 'value_error' }]);
  }
}
