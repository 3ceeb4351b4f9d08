export * from './bus';
export { NatsBus, type NatsBusOptions } from './nats/nats-bus';
export { DEFAULT_EVENT_RETENTION, type EventRetention } from './nats/event-stream';
export { InProcessBus, type InProcessBusOptions } from './in-process/in-process-bus';
export { EventRelay, type EventRelayOptions } from './relay/event-relay';
export { integrationHeaders, toIntegrationEvent } from './relay/to-integration-event';
export { isInfrastructureError } from './infrastructure-error';
export { MAX_HANDLER_ATTEMPTS } from './handler-failures';
export * from './command-context';
