// What a durable consumer does with an event its handler keeps failing on: a failure of the
// infrastructure (database, bus, a service answering 503) is retried for as long as it lasts; any other
// failure is retried `maxAttempts` times, then the event is parked: logged with its error and not
// delivered to that consumer again, so one event never holds up the events behind it.
import type { IntegrationEvent } from './bus';
import { logger } from '@spawnpoint/logging';
import { isInfrastructureError } from './infrastructure-error';

const log = logger('bus');

/** Deliveries of one event to one consumer before a non-infrastructure failure parks it. */
export const MAX_HANDLER_ATTEMPTS = 10;

/** True when the event should be parked rather than delivered again. */
export function shouldPark(err: unknown, attempts: number, maxAttempts = MAX_HANDLER_ATTEMPTS): boolean {
  return attempts >= maxAttempts && !isInfrastructureError(err);
}

export function logParked(durable: string, event: IntegrationEvent, attempts: number, err: unknown): void {
  const data = JSON.stringify(event.data ?? null);
  log.error(
    { err, project_id: event.metadata?.projectId },
    `bus: consumer ${durable} PARKED event ${event.id} (${event.type}, stream ${event.streamId}) after ${attempts} failed deliveries; `
      + `it will not be delivered to ${durable} again. Data: ${data.length > 2000 ? `${data.slice(0, 2000)}…` : data}`,
  );
}
