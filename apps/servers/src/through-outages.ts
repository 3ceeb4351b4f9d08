// Work the store must take for a game that runs (or is about to): a report, the owner row, the build's
// files, a teardown. A dependency outage must not drop it (ADR-0021): it is retried with backoff, 250 ms
// doubling to 5 s for about 10 minutes, then the startup timeout or reconcile decides.
import { isInfrastructureError } from '@spawnpoint/messaging';
import { logger } from '@spawnpoint/logging';

const log = logger('servers');

const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 5_000;
const RETRY_ATTEMPTS = 125;

export interface ThroughOutagesOptions {
  /** Which failures are worth another try (default: a dependency outage, isInfrastructureError). */
  retryIf?: (err: unknown) => boolean;
  /** Whether to go on retrying (false once the service shuts down). */
  active?: () => boolean;
  /** First retry delay, for tests. */
  firstDelayMs?: number;
}

/** `work`, retried while it fails with a retryable error; the last error is thrown. */
export async function throughOutages<T>(what: string, work: () => Promise<T>, options: ThroughOutagesOptions = {}): Promise<T> {
  const retryIf = options.retryIf ?? isInfrastructureError;
  for (let attempt = 0, delay = options.firstDelayMs ?? RETRY_FIRST_MS; ; attempt++, delay = Math.min(delay * 2, RETRY_MAX_MS)) {
    try {
      return await work();
    } catch (err) {
      if (!retryIf(err) || options.active?.() === false || attempt >= RETRY_ATTEMPTS) throw err;
      log.warn({ err }, `servers: ${what} failed; retrying in ${delay} ms`);
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}
