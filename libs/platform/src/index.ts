// The platform every service runs on, by concern: nest/ (modules, boot, config, the service host and its
// read model), commands/ (the write path: execute, lanes, state caches, serving the bus, cqrs routes),
// projections/ (read models: the runner, parked events, relay, reports, caches), workflow-runner/.
export * from './nest/config';
export * from './nest/tokens';
export * from './nest/platform.module';
export * from './nest/gateway-platform.module';
export * from './nest/boot';
export * from './nest/health-server';
export * from './nest/tracing';
export * from './nest/shutdown';
export * from './nest/event-store-factory';
export * from './nest/service-host';
export * from './nest/service-read-model';
export * from './commands/errors';
export * from './commands/execute';
export * from './commands/serve';
export * from './commands/keyed-lane';
export * from './commands/state-cache';
export * from './commands/command-context';
export * from './commands/known-outcome';
export * from './commands/cqrs';
export * from './projections/projection-runner';
export * from './projections/relay-host';
export * from './projections/view-cache';
export * from './projections/time-cursor';
export * from './projections/parked-events';
export * from './projections/service-reports';
export * from './workflow-runner';
export * from './hashing';
export * from './text';
export * from './clients/lobby-configs';
export * from './clients/game-servers';
export * from './clients/live-queue-stats';
export * from './failpoint';
export * from './blobs/blob-store';
export * from './metrics';
