// The client's deadline (ADR-0020): `x-request-timeout-ms` says how long, from the moment the gateway got
// the request, the client waits for the answer. Every bus request the handler sends carries the earlier of
// that deadline and its own timeout (the gateway's default), so a service never begins a command after its
// client gave up; the gateway answers 503 with Retry-After when the deadline passes first.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { runWithDeadline } from '@spawnpoint/messaging';

export const REQUEST_TIMEOUT_HEADER = 'x-request-timeout-ms';
/** Longer than any bus timeout of the gateway: a larger value changes nothing, so it is refused as a mistake. */
export const MAX_REQUEST_TIMEOUT_MS = 600_000;

/** preHandler: the rest of the request runs with its deadline (a bad header value is 422). */
export function enterRequestDeadline(req: FastifyRequest, reply: FastifyReply, done: () => void): void {
  const raw = req.headers[REQUEST_TIMEOUT_HEADER];
  if (raw === undefined) return done();
  const ms = typeof raw === 'string' && /^\d{1,9}$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (!(ms >= 1 && ms <= MAX_REQUEST_TIMEOUT_MS)) {
    void reply.status(422).type('application/json').send({
      error: `Invalid ${REQUEST_TIMEOUT_HEADER} header`, status: 422,
      detail: [{ loc: ['header', REQUEST_TIMEOUT_HEADER], msg: `must be an integer number of milliseconds from 1 to ${MAX_REQUEST_TIMEOUT_MS}`, type: 'value_error' }],
    });
    return;
  }
  // Counted from the request's arrival (the onRequest hooks), not from here.
  runWithDeadline(Date.now() - reply.elapsedTime + ms, done);
}

/** A 503 (a dependency away, a deadline passed) tells the client when to try again, unless a handler already did. */
export const RETRY_AFTER_SECONDS = 2;
export function retryAfterOn503(reply: FastifyReply, status: number): void {
  if (status === 503 && !reply.hasHeader('retry-after')) void reply.header('Retry-After', String(RETRY_AFTER_SECONDS));
}
