// A store event as it goes out on the bus.
import type { RecordedEvent } from '@spawnpoint/eventstore';
import type { Headers, IntegrationEvent } from '../bus';

export function toIntegrationEvent(recorded: RecordedEvent): IntegrationEvent {
  return {
    id: recorded.id,
    type: recorded.type,
    streamId: recorded.streamId,
    revision: recorded.revision,
    // Decimal string: JSON has no bigint.
    position: recorded.position.toString(),
    data: recorded.data,
    metadata: { ...recorded.metadata },
  };
}

/** Consumers' spans join the trace of the command that caused the event. */
export function integrationHeaders(recorded: RecordedEvent): Headers {
  const { traceparent } = recorded.metadata;
  return typeof traceparent === 'string' ? { traceparent } : {};
}
