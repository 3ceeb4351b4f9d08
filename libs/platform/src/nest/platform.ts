// What every service runs on (the PLATFORM provider): its config, clock, event store, checkpoints, bus and
// read models. Its own file, so the classes that take it (the host, the read model) need not import each other.
import type { CheckpointStore, EventStore } from '@spawnpoint/eventstore';
import type { Bus } from '@spawnpoint/messaging';
import type { ReadModels } from '@spawnpoint/read-models';
import type { PlatformConfig } from './config';
import type { Clock } from './tokens';

/** The ports every service uses, as one injectable (token PLATFORM). */
export interface Platform {
  config: PlatformConfig;
  clock: Clock;
  store: EventStore;
  checkpoints: CheckpointStore;
  bus: Bus;
  db: ReadModels;
}
