// The reply envelope of request/reply, identical for both adapters.
import { RemoteError, type RemoteErrorBody, type RequestContext, type RequestHandler } from './bus';
import { decode, encode } from './json';
import { markFailed } from './tracing';

type Reply = { ok: true; data?: unknown } | { ok: false; error: RemoteErrorBody };

const INTERNAL_ERROR: RemoteErrorBody = { error: 'Internal error', status: 500 };

/** Runs the handler and encodes its answer; encoding is inside the try so an unserialisable reply is a 500 too. */
export async function serveRequest(handler: RequestHandler, payload: unknown, ctx: RequestContext): Promise<Uint8Array> {
  try {
    const reply: Reply = { ok: true, data: await handler(payload, ctx) };
    return encode(reply);
  } catch (err) {
    if (err instanceof RemoteError) return encode({ ok: false, error: err.body } satisfies Reply);
    // The caller only learns "500"; the real cause stays here.
    console.error(`bus: handler for ${ctx.subject} failed`, err);
    markFailed(err);
    return encode({ ok: false, error: INTERNAL_ERROR } satisfies Reply);
  }
}

/** The handler's reply, or its RemoteError re-thrown at the caller. */
export function unwrapReply<T>(data: Uint8Array): T {
  const reply = decode(data) as Reply;
  if (!reply.ok) throw new RemoteError(reply.error);
  return reply.data as T;
}
