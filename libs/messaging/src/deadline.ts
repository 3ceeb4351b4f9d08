// A request's deadline (absolute epoch ms), carried on the bus as the `deadline` header: the moment after
// which its caller no longer waits for it. A handler must not begin a request whose deadline has passed
// (a message a disconnected client buffered and delivered on reconnect, a backlog): the caller already
// answered its client 503, and applying the command later would surprise it (ADR-0020). Every request
// gets one: the earlier of the caller's deadline (the gateway's, from the client's `x-request-timeout-ms`)
// and now + the request's timeout. The deadline is not passed on to the handler's own requests: they are
// steps of a command that has begun, each with its own timeout.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Headers } from './bus';

export const DEADLINE_HEADER = 'deadline';

const storage = new AsyncLocalStorage<number | null>();

/** Runs `fn` with `deadline` (epoch ms; null: none) as the deadline of the bus requests it sends. */
export function runWithDeadline<T>(deadline: number | null, fn: () => T): T {
  return storage.run(deadline, fn);
}

export function currentDeadline(): number | null {
  return storage.getStore() ?? null;
}

/** The deadline a request carries, if any, and whether it has passed. */
export function deadlineOf(headers: Headers): number | null {
  const raw = headers[DEADLINE_HEADER];
  if (raw === undefined) return null;
  const value = Number(raw);
  return Number.isFinite(value) ? value : null;
}

export function deadlinePassed(headers: Headers, now = Date.now()): boolean {
  const deadline = deadlineOf(headers);
  return deadline !== null && now > deadline;
}

/**
 * A request sent now with `timeoutMs`: its deadline (the earlier of the caller's and now + timeoutMs), put
 * in its headers, and the time left until it (the timeout to wait with; 0 or less: already passed).
 */
export function withDeadline(headers: Headers, timeoutMs: number, now = Date.now()): { headers: Headers; timeoutMs: number } {
  const caller = currentDeadline();
  const deadline = caller !== null ? Math.min(caller, now + timeoutMs) : now + timeoutMs;
  return { headers: { ...headers, [DEADLINE_HEADER]: String(deadline) }, timeoutMs: deadline - now };
}
