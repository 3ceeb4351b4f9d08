// Each service publishes its own streams' events to the bus through the outbox relay: the store is
// the outbox, the relay's checkpoint makes sure nothing appended is ever left unpublished.
import { CheckpointStore, EventStore } from '@spawnpoint/eventstore';
import { Bus, EventRelay } from '@spawnpoint/messaging';

export async function startRelay(store: EventStore, bus: Bus, checkpoints: CheckpointStore, service: string, categories: string[]): Promise<EventRelay> {
  const relay = new EventRelay({ store, bus, checkpoints, name: `relay-${service}`, categories });
  await relay.start();
  return relay;
}
