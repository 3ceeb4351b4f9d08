import type { ErrorBody } from './types';

/**
 * The API answered an error (its Error body). 401: the token is wrong, or its server is stopped or was
 * restarted (a restart gives the new machine a new token) — this process should exit.
 */
export class GameServerError extends Error {
  readonly status: number;
  readonly body: ErrorBody;

  constructor(body: ErrorBody, readonly request: string) {
    super(`${body.status} ${body.error} (${request})`);
    this.name = 'GameServerError';
    this.status = body.status;
    this.body = body;
  }
}

/** The request got no answer (connection refused, reset, timed out), after the retries. */
export class GameServerNetworkError extends Error {
  constructor(readonly request: string, override readonly cause: unknown) {
    super(`${request}: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'GameServerNetworkError';
  }
}
