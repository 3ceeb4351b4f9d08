// The reply envelope of request/reply, identical for both adapters.
import { logger } from '@spawnpoint/logging';
import { RemoteError, type RemoteErrorBody, type RequestContext, type RequestHandler } from './bus';
import { decode, encode } from './json';
import { markFailed } from './tracing';

const log = logger('bus');

type Reply = { ok: true; data?: unknown } | { ok: false; error: RemoteErrorBody };

const INTERNAL_ERROR: RemoteErrorBody = { error: 'Internal error', status: 500 };

/** Runs the handler and packs its answer; packing is inside the try so an unserialisable reply is a 500 too. */
async function settle<T>(handler: RequestHandler, payload: unknown, ctx: RequestContext, pack: (reply: Reply) => T): Promise<T> {
  try {
    return pack({ ok: true, data: await handler(payload, ctx) });
  } catch (err) {
    if (err instanceof RemoteError) return pack({ ok: false, error: err.body });
    // The caller only learns "500"; the real cause stays here.
    const projectId = (payload as { projectId?: unknown } | null)?.projectId;
    log.error({ err, project_id: typeof projectId === 'string' ? projectId : undefined }, `bus: handler for ${ctx.subject} failed`);
    markFailed(err);
    return pack({ ok: false, error: INTERNAL_ERROR });
  }
}

/** For the wire (NATS): the reply envelope as bytes. */
export const serveRequest = (handler: RequestHandler, payload: unknown, ctx: RequestContext): Promise<Uint8Array> => settle(handler, payload, ctx, encode);

/**
 * In process: the reply envelope handed over as is. Replies are not copied (a copy of every view is a
 * measurable share of a GET); handlers return fresh or frozen JSON values, and the e2e suite runs the
 * same requests over NATS, where any non-JSON reply would show.
 */
export const serveLocally = (handler: RequestHandler, payload: unknown, ctx: RequestContext): Promise<Reply> => settle(handler, payload, ctx, (reply) => reply);

/** The handler's reply, or its RemoteError re-thrown at the caller. */
export function unwrap<T>(reply: Reply): T {
  if (!reply.ok) throw new RemoteError(reply.error);
  return reply.data as T;
}

export const unwrapReply = <T>(data: Uint8Array): T => unwrap<T>(decode(data) as Reply);
