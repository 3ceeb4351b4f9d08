// Exit codes scripts can rely on (documented in docs/cli.md): one per kind of failure.
import { AuthError, ConflictError, NetworkError, NotFoundError, RateLimitError, ServerError, SpawnpointError, ValidationError } from '@spawnpoint/client';

export const EXIT = {
  ok: 0,
  /** Anything else (a build that failed, a wait that timed out). */
  failed: 1,
  /** Bad command line: unknown command or option, missing argument. */
  usage: 2,
  /** No login, or the key or admin token was refused (401 / 403). */
  auth: 3,
  notFound: 4,
  conflict: 5,
  invalid: 6,
  rateLimited: 7,
  /** The platform failed (5xx) or could not be reached. */
  unavailable: 8,
} as const;

export class UsageError extends Error {}
export class NotLoggedIn extends Error {}

export function exitCodeFor(err: unknown): number {
  if (err instanceof UsageError) return EXIT.usage;
  if (err instanceof NotLoggedIn || err instanceof AuthError) return EXIT.auth;
  if (err instanceof NotFoundError) return EXIT.notFound;
  if (err instanceof ConflictError) return EXIT.conflict;
  if (err instanceof ValidationError) return EXIT.invalid;
  if (err instanceof RateLimitError) return EXIT.rateLimited;
  if (err instanceof ServerError || err instanceof NetworkError) return EXIT.unavailable;
  if (err instanceof SpawnpointError) return EXIT.failed;
  return EXIT.failed;
}
