// A command whose reply timed out may still be applied (the service is slow, not gone). Asking again
// with the same command id joins the first run in the service (RecentCommands) or meets its recorded
// result, so the caller answers with what happened instead of a 503 that lies.
import { BusUnavailable, RemoteError } from '@spawnpoint/messaging';

export const isBusTimeout = (err: unknown): err is BusUnavailable => err instanceof BusUnavailable && err.message.endsWith(': timeout');

export interface UntilKnownOptions {
  /** Asks that may time out, the first included (default 3). */
  tries?: number;
  /** After a timeout, a moment without any responder (the service restarting) is waited out this long (default 10 s). */
  restartWaitMs?: number;
}

/**
 * `ask` again (it must re-send the same command id) while its reply times out. A request no service
 * received ("no responders" before any timeout) was certainly not applied and fails at once.
 */
export async function untilKnown<T>(ask: () => Promise<T>, options: UntilKnownOptions = {}): Promise<T> {
  const tries = options.tries ?? 3;
  let timeouts = 0;
  let waitedSince: number | null = null;
  for (;;) {
    try {
      return await ask();
    } catch (err) {
      if (isBusTimeout(err)) {
        timeouts++;
        waitedSince = null;
        if (timeouts < tries) continue;
      } else if (err instanceof BusUnavailable && timeouts > 0) {
        // Sent once and then the service went away: wait for it to come back and ask it again.
        waitedSince ??= Date.now();
        if (Date.now() - waitedSince < (options.restartWaitMs ?? 10_000)) {
          await new Promise((r) => setTimeout(r, 250));
          continue;
        }
      } else {
        throw err;
      }
      throw new RemoteError({
        error: 'Service unavailable: the outcome of this request is not known',
        status: 503,
        detail: `${(err as Error).message} after ${timeouts} timed-out asks; it may still be applied: retry with the same Idempotency-Key to get its outcome without applying it twice`,
      });
    }
  }
}
