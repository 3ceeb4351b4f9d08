// One mapping from failures to the spec's error body, used by bus handlers and the gateway.
import { DomainError, DomainErrorCode } from '@spawnpoint/domain';
import { BusUnavailable, isInfrastructureError, RemoteError, RemoteErrorBody } from '@spawnpoint/messaging';
import { ReadModelBehind } from '../projections/projection-runner';

const STATUS: Record<DomainErrorCode, number> = { not_found: 404, conflict: 409, forbidden: 403, invalid: 422, bad_request: 400 };

export function toErrorBody(err: unknown): RemoteErrorBody {
  if (err instanceof RemoteError) return err.body;
  if (err instanceof DomainError) {
    const body: RemoteErrorBody = { error: err.message, status: STATUS[err.code] };
    if (err.detail !== undefined) body.detail = err.detail;
    return body;
  }
  if (err instanceof BusUnavailable) return { error: 'Service unavailable', status: 503, detail: err.message };
  // The database or the bus is unreachable (down, restarting, failing over, a connection dropped): the
  // request may pass on a retry, so the client is told to retry (503 + Retry-After at the gateway), never 500.
  if (err instanceof ReadModelBehind) return { error: 'Service unavailable', status: 503, detail: 'the service is catching up after an outage; retry later' };
  if (isInfrastructureError(err)) return { error: 'Service unavailable', status: 503, detail: 'a dependency of the service is unavailable; retry later' };
  return { error: 'Internal error', status: 500 };
}

/** Bus handlers throw RemoteError so the caller sees the same status and body (serve() logs a 500's cause). */
export function asRemote(err: unknown): RemoteError {
  if (err instanceof RemoteError) return err;
  return new RemoteError(toErrorBody(err));
}
