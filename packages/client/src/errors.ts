// Every error the API answers carries the spec's Error body ({error, status, detail?}); the SDK throws it
// as a SpawnpointError (a subclass per status family), so callers can branch on the class or on `status`.
import type { ErrorBody } from './types';

/** One validation problem: where (`loc`: ["body" | "query" | "path" | "header", field, ...]), what and why. */
export interface ValidationIssue { loc: (string | number)[]; msg: string; type: string }

export class SpawnpointError extends Error {
  readonly status: number;
  readonly body: ErrorBody;
  /** Seconds the server asked to wait (429), when it said. */
  readonly retryAfter: number | null;
  /** The request that failed, for logs: `GET /v3/servers/…`. */
  readonly request: string;

  constructor(body: ErrorBody, request: string, retryAfter: number | null = null) {
    super(`${body.status} ${body.error} (${request})`);
    this.name = new.target.name;
    this.status = body.status;
    this.body = body;
    this.retryAfter = retryAfter;
    this.request = request;
  }

  /** The 422 detail, empty for other errors. */
  get issues(): ValidationIssue[] {
    return Array.isArray(this.body.detail) ? (this.body.detail as ValidationIssue[]) : [];
  }
}

/** 400: the request cannot be done as asked (a full lobby, say). */
export class BadRequestError extends SpawnpointError {}
/** 401 (no or unknown key) or 403 (the key may not do this: a client key on a server-key route). */
export class AuthError extends SpawnpointError {}
/** 404: no such resource in this project (another project's resources are 404 too). */
export class NotFoundError extends SpawnpointError {}
/** 409: the resource's state forbids it now (update of a stopped server, already in a lobby, a race lost). */
export class ConflictError extends SpawnpointError {}
/** 413 / 414 / 431: too large. */
export class TooLargeError extends SpawnpointError {}
/** 422: validation failed; `issues` says where. */
export class ValidationError extends SpawnpointError {}
/** 429: rate limited, still after the SDK's retries. */
export class RateLimitError extends SpawnpointError {}
/** 5xx: the platform failed (after the SDK's retries where a retry was safe). */
export class ServerError extends SpawnpointError {}

/** The request never got an answer (connection refused, reset, timed out). */
export class NetworkError extends Error {
  constructor(readonly request: string, override readonly cause: unknown) {
    super(`${request}: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'NetworkError';
  }
}

export function errorFor(body: ErrorBody, request: string, retryAfter: number | null): SpawnpointError {
  const s = body.status;
  const Class = s === 400 ? BadRequestError
    : s === 401 || s === 403 ? AuthError
      : s === 404 ? NotFoundError
        : s === 409 ? ConflictError
          : s === 413 || s === 414 || s === 431 ? TooLargeError
            : s === 422 ? ValidationError
              : s === 429 ? RateLimitError
                : s >= 500 ? ServerError
                  : SpawnpointError;
  return new Class(body, request, retryAfter);
}
